# analysis.R - recompute the tables of report.json from this package's CSV
# files, in base R (no packages).
#
#   Rscript analysis.R          the tables, laid out as `bugcoder report`
#   Rscript analysis.R --csv    every cell: table,row,column,value
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
# (of the items of known days open); kappa is Cohen's for select-one
# dimensions (undefined when a coder used one code on every item, or the
# coders share no code) and the mean of the per-code kappas for
# select-many ones, over the items of the round both coders submitted.

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

# agreement per dimension and round
cohen <- function(a, b) {
  if (length(unique(a)) < 2 || length(unique(b)) < 2) return(NA)
  if (!length(intersect(a, b))) return(NA)
  cats <- union(a, b)
  po <- mean(a == b)
  pe <- sum(vapply(cats, function(c) mean(a == c) * mean(b == c), 0))
  (po - pe) / (1 - pe)
}
code_kappa <- function(x, y) {
  # undefined as for select one: a coder who never (or always) chose
  # the code
  if (length(unique(x)) < 2 || length(unique(y)) < 2) return(NA)
  a <- sum(x & y); b <- sum(x & !y); c <- sum(!x & y); d <- sum(!x & !y)
  2 * (a * d - b * c) / ((a + b) * (b + d) + (a + c) * (c + d))
}
subm <- raw[raw$submitted_at != "", , drop = FALSE]
rows <- list()
for (d in dims) {
  for (r in rounds$name[rounds$kind == "code"]) {
    items <- round_items$item[round_items$round == r]
    coders <- strsplit(rounds$annotators[rounds$name == r], ";", fixed = TRUE)[[1]]
    if (length(coders) != 2) next
    # items both coders submitted
    both <- items[vapply(items, function(i)
      all(coders %in% subm$annotator[subm$item == i]), logical(1))]
    lab <- subm[subm$dimension == d & subm$item %in% both, , drop = FALSE]
    codes_of <- function(i, who) lab$code[lab$item == i & lab$annotator == who]
    if (many(d)) {
      ks <- c()
      for (cd in codes$code[codes$dimension == d]) {
        x <- vapply(both, function(i) cd %in% codes_of(i, coders[1]), logical(1))
        y <- vapply(both, function(i) cd %in% codes_of(i, coders[2]), logical(1))
        ks <- c(ks, if (length(both)) code_kappa(x, y) else NA)
      }
      k <- if (any(!is.na(ks))) mean(ks, na.rm = TRUE) else NA
    } else {
      # an item a coder left empty is dropped
      both <- both[vapply(both, function(i) length(codes_of(i, coders[1])) > 0 &&
                            length(codes_of(i, coders[2])) > 0, logical(1))]
      a <- vapply(both, function(i) codes_of(i, coders[1])[1], "")
      b <- vapply(both, function(i) codes_of(i, coders[2])[1], "")
      k <- if (length(both)) cohen(a, b) else NA
    }
    rows[[length(rows) + 1]] <- list(txt(d), txt(r), int(length(both)), num(k))
  }
}
add_table("agreement", "Agreement per dimension and round",
          c("dimension", "round", "items", "kappa"), rows)

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
