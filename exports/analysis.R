# SPDX-License-Identifier: MIT
# analysis.R - recompute the tables of report.json from this package's CSV
# files, in base R (no packages).
#
#   Rscript analysis.R          the tables, laid out as `bugcoder report`
#   Rscript analysis.R --csv    every cell: table,row,column,value
#   --mc-band                   also, per agreement row, where another
#                               set of resamples may put each bootstrap
#                               bound (to compare the bounds, which R
#                               draws with its own generator)
#
# Inputs: agreed-labels.csv, codes.csv, raw-labels.csv, round-items.csv,
# rounds.csv, selection.csv.  The options below are the ones report.json
# was made with.
# Definitions (as in the report): shares are of the items counted; a
# select-many item counts under each of its codes; "(none)" is an item
# agreed to have no code, "(pending)" a dimension not decided yet (only
# with include_pending); quartiles are R's default (type 7); small fixes
# change at most `small` lines (of the fixes of known size); hard bugs are
# open more than `hard_days` days with at least `hard_comments` comments
# (of the items of known days open); agreement: see its section below.

small <- @SMALL@
hard_days <- @HARD_DAYS@
hard_comments <- @HARD_COMMENTS@
cross <- c(@CROSS@)
by <- @BY@
effort_by <- @EFFORT_BY@
include_pending <- @PENDING@

rd <- function(f) read.csv(f, colClasses = "character", na.strings = character(0),
                           check.names = FALSE, encoding = "UTF-8")
agreed <- rd("agreed-labels.csv")
codes <- rd("codes.csv")
raw <- rd("raw-labels.csv")
round_items <- rd("round-items.csv")
rounds <- rd("rounds.csv")
selection <- rd("selection.csv")

dims <- unique(codes$dimension)
extra <- c("(none)", "(not in codebook)", "(pending)")
slot_order <- function(d) c(codes$code[codes$dimension == d], extra)
many <- function(d) codes$select[codes$dimension == d][1] == "many"

decided <- rep(TRUE, nrow(agreed))
for (d in dims) decided <- decided & agreed[[paste0(d, "_status")]] != "pending"
use <- if (include_pending) agreed else agreed[decided, , drop = FALSE]
n <- nrow(use)

# the code slots of every counted item, per dimension: a list of vectors
slots <- list()
for (d in dims) {
  known <- codes$code[codes$dimension == d]
  st <- use[[paste0(d, "_status")]]
  v <- use[[d]]
  slots[[d]] <- lapply(seq_len(n), function(i) {
    if (st[i] == "pending") return("(pending)")
    if (v[i] == "") return("(none)")
    s <- strsplit(v[i], ";", fixed = TRUE)[[1]]
    ifelse(s %in% known, s, "(not in codebook)")
  })
}
has <- function(d, s, rows = seq_len(n))
  vapply(slots[[d]][rows], function(x) s %in% x, logical(1))

tables <- list()
tables_kappa <- FALSE
cl <- function(k, v) list(k = k, v = v)
txt <- function(v) cl("t", v)
int <- function(v) cl("i", v)
num <- function(v) cl("n", v)
pct <- function(a, of) cl("p", if (of > 0) 100 * a / of else NA)
add_table <- function(id, title, columns, rows)
  tables[[length(tables) + 1]] <<- list(id = id, title = title,
                                        columns = columns, rows = rows)

# the selection flow: every item of the study, per repository, from seen
# to agreed (selection.csv); screening columns are NA without screening
screens <- any(rounds$kind == "screen")
reasons <- c()
for (r in rounds$reasons[rounds$kind == "screen"])
  reasons <- union(reasons, strsplit(r, ";", fixed = TRUE)[[1]])
decisions <- selection$decision[selection$decision != "" &
                                selection$decision != "include"]
reasons <- c(reasons, sort(setdiff(unique(decisions), reasons),
                           method = "radix"))
rows <- list()
for (g in c(sort(unique(selection$repo), method = "radix"), "all")) {
  s <- if (g == "all") selection else selection[selection$repo == g, ,
                                                drop = FALSE]
  row <- list(txt(g), int(nrow(s)), int(sum(s$with_fix == "TRUE")),
              int(if (screens) sum(s$decision != "") else NA),
              int(if (screens) sum(s$decision == "include") else NA))
  for (x in reasons) row <- c(row, list(int(sum(s$decision == x))))
  row <- c(row, list(int(sum(s$coded == "TRUE")),
                     int(sum(s$status == "agreed")),
                     int(sum(s$status == "adjudicated")),
                     int(sum(s$status == "open"))))
  rows[[length(rows) + 1]] <- row
}
add_table("flow", "Selection flow per repository",
          c("repository", "seen", "with merged fix", "screened", "included",
            paste("excluded:", reasons), "coded", "agreed", "adjudicated",
            "open"), rows)

# shares
for (d in dims) {
  rows <- list()
  for (s in slot_order(d)) {
    k <- sum(has(d, s))
    if (s %in% extra && k == 0) next
    rows[[length(rows) + 1]] <- list(txt(s), int(k), pct(k, n))
  }
  rows[[length(rows) + 1]] <- list(txt("total"), int(n), cl("x", NA))
  add_table(paste0("shares.", d), d, c("code", "items", "share"), rows)
}

repos <- sort(unique(use$repo), method = "radix")
if (length(repos) > 1) {
  groups <- c("all", repos)
  for (d in dims) {
    rows <- list()
    for (s in slot_order(d)) {
      if (s %in% extra && sum(has(d, s)) == 0) next
      row <- list(txt(s))
      for (g in groups) {
        w <- if (g == "all") seq_len(n) else which(use$repo == g)
        k <- sum(has(d, s, w))
        row <- c(row, list(int(k), pct(k, length(w))))
      }
      rows[[length(rows) + 1]] <- row
    }
    add_table(paste0("repo.", d), paste(d, "by repository"),
              c(d, as.vector(rbind(groups, paste(groups, "%")))), rows)
  }
}

# codes marked distributed
dist_codes <- function(d) codes$code[codes$dimension == d & codes$distributed == "TRUE"]
ddims <- Filter(function(d) length(dist_codes(d)) > 0, dims)
is_dist <- function(d, rows = seq_len(n))
  vapply(slots[[d]][rows], function(x) any(x %in% dist_codes(d)), logical(1))
rows <- list()
for (d in ddims) {
  k <- sum(is_dist(d))
  rows[[length(rows) + 1]] <- list(txt(d), int(n), int(k), pct(k, n))
}
add_table("distributed", "Codes marked distributed",
          c("dimension", "items", "distributed", "share"), rows)
if ("stage" %in% dims) {
  rows <- list()
  for (s in slot_order("stage")) {
    w <- which(has("stage", s))
    if (length(w) == 0) next
    row <- list(txt(s), int(length(w)))
    for (d in ddims) {
      k <- sum(is_dist(d, w))
      row <- c(row, list(int(k), pct(k, length(w))))
    }
    rows[[length(rows) + 1]] <- row
  }
  add_table("distributed.stage", "Codes marked distributed, per stage",
            c("stage", "items", as.vector(rbind(paste(ddims, "distributed"),
                                                paste(ddims, "share")))), rows)
}

# cross tables
cross_tables <- function(w, prefix, where) {
  cx <- cross[1]; cy <- cross[2]
  xs <- slot_order(cx); ys <- slot_order(cy)
  m <- matrix(0, length(xs), length(ys), dimnames = list(xs, ys))
  for (i in w)
    for (a in slots[[cx]][[i]])
      for (b in slots[[cy]][[i]])
        m[a, b] <- m[a, b] + 1
  if (!is.na(by) && sum(m) == 0) return(invisible())
  xs <- xs[rowSums(m) > 0]; ys <- ys[colSums(m) > 0]
  m <- m[xs, ys, drop = FALSE]
  rt <- rowSums(m); ct <- colSums(m); tot <- sum(m)
  head <- c(paste(cx, "\\", cy), ys, "total")
  for (kind in c("counts", "row_share", "col_share")) {
    rows <- list()
    for (a in xs) {
      row <- list(txt(a))
      for (b in ys)
        row <- c(row, list(switch(kind, counts = int(m[a, b]),
                                  row_share = pct(m[a, b], rt[[a]]),
                                  col_share = pct(m[a, b], ct[[b]]))))
      row <- c(row, list(switch(kind, counts = int(rt[[a]]),
                                row_share = pct(rt[[a]], rt[[a]]),
                                col_share = pct(rt[[a]], tot))))
      rows[[length(rows) + 1]] <- row
    }
    row <- list(txt("total"))
    for (b in ys)
      row <- c(row, list(switch(kind, counts = int(ct[[b]]),
                                row_share = pct(ct[[b]], tot),
                                col_share = pct(ct[[b]], ct[[b]]))))
    row <- c(row, list(if (kind == "counts") int(tot) else pct(tot, tot)))
    rows[[length(rows) + 1]] <- row
    add_table(paste0(prefix, ".", kind),
              paste0(cx, " x ", cy, where, " (", kind, ")"), head, rows)
  }
}
if (is.na(by)) {
  cross_tables(seq_len(n), "cross", "")
} else {
  for (s in slot_order(by))
    cross_tables(which(has(by, s)), paste0("cross.", s),
                 paste0(" where ", by, " = ", s))
}

# effort
groups <- list(all = seq_len(n))
if (length(repos) > 1)
  for (r in repos) groups[[r]] <- which(use$repo == r)
if (!is.na(effort_by))
  for (s in slot_order(effort_by)) {
    w <- which(has(effort_by, s))
    if (length(w)) groups[[paste0(effort_by, "=", s)]] <- w
  }
q7 <- function(x, p) if (length(x)) unname(quantile(x, p, type = 7)) else NA
size_rows <- list(); q_rows <- list()
for (g in names(groups)) {
  w <- groups[[g]]
  lines <- as.numeric(use$lines_changed[w][use$lines_changed[w] != ""])
  known <- use$days_open[w] != ""
  days <- as.numeric(use$days_open[w][known])
  comments <- as.numeric(use$comments[w])
  sm <- sum(lines <= small)
  hd <- sum(days > hard_days & comments[known] >= hard_comments)
  size_rows[[length(size_rows) + 1]] <- list(
    txt(g), int(length(w)), int(sm), int(length(lines)), pct(sm, length(lines)),
    int(hd), int(length(days)), pct(hd, length(days)))
  row <- list(txt(g), int(length(w)))
  for (x in list(days, comments, lines))
    for (p in c(0.25, 0.5, 0.75)) row <- c(row, list(num(q7(x, p))))
  q_rows[[length(q_rows) + 1]] <- row
}
add_table("effort.size", "Effort: small fixes and hard bugs",
          c("group", "items", paste("fixes <=", small, "lines"),
            "fixes of known size", "share", "hard",
            "items of known days open", "hard share"), size_rows)
add_table("effort.quartiles", "Effort: quartiles (type 7)",
          c("group", "items", as.vector(t(outer(
            c("days open", "comments", "lines changed"),
            c("q1", "median", "q3"), paste)))), q_rows)

# agreement per dimension and round, then the whole study: kappa as
# `bugcoder agree` reports it and its 95% interval.  Cohen's kappa (two
# annotators) or Fleiss' kappa (more) for select-one dimensions, the mean
# of the per-code kappas for select-many ones; undefined, with the
# reason, when degenerate: one coder used a single code on every item or
# the two share none (a per-code kappa: a coder never or always chose the
# code, or nobody did).  The interval: a percentile bootstrap over items
# (boot_samples resamples; a degenerate resample is drawn again and
# counted; undefined when they reach half of all draws), or for a kappa
# of 1 the exact one-sided lower bound (0.05^(1/n) - pe) / (1 - pe).  R
# draws its own resamples: the bounds and the degenerate count agree with
# report.json's within Monte Carlo error, every other cell exactly.
boot_samples <- @BOOT@
boot_seed <- @SEED@
subm <- raw[raw$submitted_at != "", , drop = FALSE]
# machine coders count in the whole study only when a round declared them
machines <- character(0)
if (file.exists("machine-answers.jsonl")) {
  ma <- readLines("machine-answers.jsonl", encoding = "UTF-8", warn = FALSE)
  ma <- ma[grepl("\"machine\": *\"", ma)]
  machines <- unique(sub(".*\"machine\": *\"([^\"]*)\".*", "\\1", ma))
}
declared <- unique(unlist(strsplit(rounds$annotators, ";", fixed = TRUE)))
eps13 <- 1e-13
band_of <- function(k) {
  if (is.na(k)) return(NA)
  e <- 1e-9
  if (k < -e) "poor" else if (k <= .2 + e) "slight" else if (k <= .4 + e)
    "fair" else if (k <= .6 + e) "moderate" else if (k <= .8 + e)
    "substantial" else "almost perfect"
}
kres <- function(v = NA, why = NA, pe = NA) list(v = v, why = why, pe = pe)
# Cohen's kappa of code indexes x, y (1..k), with the reason when undefined
cohen_k <- function(x, y, k) {
  n <- length(x)
  if (!n) return(kres(why = "no items"))
  tx <- tabulate(x, k) / n; ty <- tabulate(y, k) / n
  ux <- which(tx > 0); uy <- which(ty > 0)
  if (length(ux) == 1 && length(uy) == 1 && ux == uy)
    return(kres(why = "expected agreement is 1: both annotators used a single code"))
  pe <- sum(tx * ty)
  if (length(ux) == 1 || length(uy) == 1)
    return(kres(why = "one annotator used a single code on every item"))
  if (!length(intersect(ux, uy)))
    return(kres(why = "the two annotators used no code in common"))
  kres((mean(x == y) - pe) / (1 - pe), pe = pe)
}
# per-code kappas of logical matrices X, Y (items x codes): NA where the
# code says nothing
code_ks <- function(X, Y) {
  n <- nrow(X)
  a <- colSums(X & Y); b <- colSums(X & !Y); c <- colSums(!X & Y)
  d <- n - a - b - c
  k <- 2 * (a * d - b * c) / ((a + b) * (b + d) + (a + c) * (c + d))
  k[a + b + c == 0 | b + c + d == 0 | a + b == 0 | a + c == 0 |
    a + b == n | a + c == n] <- NA
  k
}
mean_ks <- function(ks, why = "no code has a defined kappa")
  if (all(is.na(ks))) kres(why = why) else kres(mean(ks, na.rm = TRUE))
# Fleiss' kappa of a units x codes count matrix (units with 2 ratings)
fleiss_k <- function(M) {
  m <- rowSums(M)
  M <- M[m >= 2, , drop = FALSE]; m <- m[m >= 2]
  if (!nrow(M)) return(kres(why = "no item has two ratings"))
  po <- mean(rowSums(M * (M - 1)) / (m * (m - 1)))
  p <- colMeans(M / m); pe <- sum(p^2)
  if (sum(p > 0) == 1 || 1 - pe <= eps13)
    return(kres(why = "expected agreement is 1: every rating is the same code"))
  kres((po - pe) / (1 - pe), pe = pe)
}
# per-code Fleiss' kappas of coders x units x codes logical sets, units
# with 2 coders or more (NA rows: not submitted)
fleiss_code_ks <- function(S) {
  vapply(seq_len(dim(S)[3]), function(j) {
    yes <- colSums(S[, , j, drop = FALSE], na.rm = TRUE)
    m <- colSums(!is.na(S[, , j, drop = FALSE]))
    r <- fleiss_k(cbind(yes, m - yes)[m >= 2, , drop = FALSE])
    r$v
  }, 0)
}
# the bootstrap of stat(index vector) over n items, or the exact bound
interval <- function(est, n, stat, lower_if_one) {
  out <- list(lo = NA, hi = NA, method = "bootstrap percentile",
              samples = boot_samples, degenerate = NA, seed = boot_seed,
              why = NA, band = rep(NA, 4))
  if (is.na(est$v)) { out$why <- est$why; out$samples <- NA; out$seed <- NA
                      return(out) }
  if (est$v >= 1 - 1e-12) {
    out$method <- "exact lower bound (kappa = 1)"
    out$samples <- NA; out$seed <- NA
    lo <- lower_if_one()
    if (is.na(lo)) out$why <- "chance agreement is 1: no lower bound"
    else { out$lo <- max(-1, lo); out$hi <- 1 }
    return(out)
  }
  set.seed(boot_seed %% .Machine$integer.max)
  reps <- numeric(boot_samples); used <- 0; degen <- 0
  while (used < boot_samples && degen < boot_samples) {
    v <- stat(sample.int(n, n, replace = TRUE))
    if (is.na(v)) degen <- degen + 1 else { used <- used + 1; reps[used] <- v }
  }
  out$degenerate <- degen
  if (used < boot_samples) {
    out$why <- "half of the bootstrap resamples or more are degenerate"
    return(out)
  }
  q <- unname(quantile(reps, c(0.025, 0.975), type = 7))
  if (q[2] - q[1] <= eps13) {
    out$why <- "every bootstrap sample gives the same value"
    return(out)
  }
  out$lo <- max(-1, q[1]); out$hi <- min(1, q[2])
  # how far another set of resamples may put each bound: its quantile
  # level moved by 4 standard errors of the difference of two estimates
  dl <- 4 * sqrt(2 * 0.025 * 0.975 / boot_samples)
  out$band <- pmin(1, pmax(-1, unname(quantile(reps, c(0.025 - dl, 0.025 + dl,
                                                       0.975 - dl, 0.975 + dl),
                                              type = 7))))
  out
}
perfect_lower <- function(n, pe) if (n < 1 || !(pe < 1)) NA else
  (0.05^(1 / n) - pe) / (1 - pe)
dim_codes <- function(d) codes$code[codes$dimension == d]
versions_of <- function(rows)
  paste(sort(unique(rows$codebook_version), method = "radix"), collapse = ", ")
# one row of the table: dimension d, the coders, the items in scope
agreement_row <- function(d, rname, closed, coders, items, versions) {
  coders <- sort(coders, method = "radix")
  cds <- dim_codes(d); k <- length(cds)
  sub <- subm[subm$item %in% items & subm$annotator %in% coders, ,
              drop = FALSE]
  who <- tapply(sub$annotator, sub$item, function(a) length(unique(a)))
  units <- names(who)[who >= 2]
  units <- items[items %in% units]
  lab <- sub[sub$dimension == d & sub$item %in% units, , drop = FALSE]
  has <- function(i, c) lab$code[lab$item == i & lab$annotator == c]
  coef <- if (length(coders) < 2) "Cohen's kappa" else
    if (many(d)) "mean per-code kappa" else
    if (length(coders) > 2) "Fleiss' kappa" else "Cohen's kappa"
  n <- 0; est <- kres(why = "fewer than two annotators"); stat <- NULL
  low1 <- function() NA
  if (length(coders) >= 2 && many(d)) {
    S <- array(NA, c(length(coders), length(units), k))
    for (ci in seq_along(coders))
      for (ui in seq_along(units)) {
        if (!any(sub$item == units[ui] & sub$annotator == coders[ci])) next
        S[ci, ui, ] <- cds %in% has(units[ui], coders[ci])
      }
    n <- length(units)
    if (length(coders) == 2) {
      X <- matrix(S[1, , ], n, k); Y <- matrix(S[2, , ], n, k)
      est <- if (n) mean_ks(code_ks(X, Y)) else kres(why = "no items")
      stat <- function(i) mean_ks(code_ks(X[i, , drop = FALSE],
                                          Y[i, , drop = FALSE]))$v
      low1 <- function() {
        ks <- code_ks(X, Y); pa <- colMeans(X); pb <- colMeans(Y)
        pe <- pa * pb + (1 - pa) * (1 - pb)
        mean(vapply(which(!is.na(ks)), function(j) perfect_lower(n, pe[j]), 0))
      }
    } else {
      est <- if (n) mean_ks(fleiss_code_ks(S)) else kres(why = "no items")
      stat <- function(i) mean_ks(fleiss_code_ks(S[, i, , drop = FALSE]))$v
      low1 <- function() {
        ks <- fleiss_code_ks(S)
        # per code: the mean over the coders of the share of their
        # units they chose it on
        share <- vapply(seq_len(k), function(j)
          mean(rowMeans(matrix(S[, , j], length(coders)), na.rm = TRUE)), 0)
        pe <- share^2 + (1 - share)^2
        mean(vapply(which(!is.na(ks)), function(j) perfect_lower(n, pe[j]), 0))
      }
    }
  } else if (length(coders) == 2) {
    # an item a coder left empty is dropped
    a <- vapply(units, function(i) match(has(i, coders[1])[1], cds), 0L)
    b <- vapply(units, function(i) match(has(i, coders[2])[1], cds), 0L)
    ok <- !is.na(a) & !is.na(b)
    a <- a[ok]; b <- b[ok]; n <- length(a)
    est <- cohen_k(a, b, k)
    stat <- function(i) cohen_k(a[i], b[i], k)$v
    low1 <- function() perfect_lower(n, est$pe)
  } else if (length(coders) > 2) {
    M <- t(vapply(units, function(i) {
      cs <- vapply(coders, function(c) match(has(i, c)[1], cds), 0L)
      tabulate(cs[!is.na(cs)], k)
    }, numeric(k)))
    M <- M[rowSums(M) >= 2, , drop = FALSE]
    n <- nrow(M)
    est <- fleiss_k(M)
    stat <- function(i) fleiss_k(M[i, , drop = FALSE])$v
    low1 <- function() perfect_lower(n, est$pe)
  }
  ci <- interval(est, n, stat, low1)
  note <- if (!is.na(est$why)) est$why else if (!is.na(ci$why)) ci$why else
    if (!is.na(ci$lo) && n < 10) sprintf("only %d item%s, under 10: the interval says little",
                                        n, if (n == 1) "" else "s") else ""
  bands[[length(bands) + 1]] <<- lapply(ci$band, num)
  list(txt(d), txt(rname), txt(closed), txt(versions), int(n), txt(coef),
       num(est$v), num(ci$lo), num(ci$hi), txt(ci$method), int(ci$samples),
       int(ci$degenerate), int(ci$seed), txt(if (is.na(est$v)) "" else band_of(est$v)),
       txt(note))
}
rows <- list()
bands <- list()
for (d in dims) {
  for (r in rounds$name[rounds$kind == "code"]) {
    items <- round_items$item[round_items$round == r]
    coders <- strsplit(rounds$annotators[rounds$name == r], ";", fixed = TRUE)[[1]]
    vrows <- raw[raw$item %in% items & raw$annotator %in% coders, , drop = FALSE]
    rows[[length(rows) + 1]] <- agreement_row(
      d, r, if (rounds$closed_at[rounds$name == r] != "") "yes" else "no",
      coders, items, versions_of(vrows))
  }
  if (nrow(rounds)) {
    coders <- unique(subm$annotator)
    coders <- coders[!(coders %in% machines) | coders %in% declared]
    rows[[length(rows) + 1]] <- agreement_row(
      d, "(whole study)", "", coders, unique(subm$item), versions_of(raw))
  }
}
add_table("agreement", "Agreement per dimension and round, the whole study last",
          c("dimension", "round", "closed", "codebook", "items", "coefficient",
            "kappa", "ci low", "ci high", "ci method", "resamples", "degenerate",
            "seed", "band", "note"), rows)
if ("--mc-band" %in% commandArgs(trailingOnly = TRUE))
  add_table("agreement.mc_band", "Monte Carlo band of each bootstrap bound",
            c("low from", "low to", "high from", "high to"), bands)

# output
show <- function(c) {
  if (c$k == "t") return(c$v)
  if (is.na(c$v)) return(if (c$k == "x") "" else "-")
  if (c$k == "p") return(sprintf("%.1f%%", c$v))
  if (c$k == "i" || c$v == round(c$v)) return(sprintf("%.0f", c$v))
  sprintf(if (tables_kappa) "%.6g" else "%.2f", c$v)
}
args <- commandArgs(trailingOnly = TRUE)
if ("--csv" %in% args) {
  out <- data.frame(table = character(0), row = integer(0), column = integer(0),
                    value = character(0))
  for (t in tables)
    for (i in seq_along(t$rows))
      for (j in seq_along(t$rows[[i]])) {
        c <- t$rows[[i]][[j]]
        v <- if (c$k == "t") c$v else if (is.na(c$v)) "NA" else sprintf("%.10g", c$v)
        out[nrow(out) + 1, ] <- list(t$id, i - 1L, j - 1L, v)
      }
  write.csv(out, stdout(), row.names = FALSE)
} else {
  cat(sprintf("%d items counted (%s)\n\n", n, if (include_pending)
    "every item, --include-pending" else "agreed items only"))
  for (t in tables) {
    tables_kappa <- t$id == "agreement"
    cat(t$title, "\n", sep = "")
    if (!length(t$rows)) { cat("  (none)\n\n"); next }
    cells <- rbind(t$columns, do.call(rbind, lapply(t$rows, function(r)
      vapply(r, show, ""))))
    w <- apply(nchar(cells), 2, max)
    for (i in seq_len(nrow(cells))) {
      line <- vapply(seq_len(ncol(cells)), function(j)
        formatC(cells[i, j], width = w[j], flag = if (j == 1) "-" else " "), "")
      cat("  ", sub("\\s+$", "", paste(line, collapse = "  ")), "\n", sep = "")
    }
    cat("\n")
  }
}
