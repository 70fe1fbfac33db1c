/* SPDX-License-Identifier: MIT */
/*
 * The schema of a study, version by version.  migrations[i] takes a study
 * from user_version i to i + 1; a new study runs them all.  Never edit a
 * released step: add a new one.
 */
#ifndef BUGCODER_SCHEMA_H
#define BUGCODER_SCHEMA_H

static const char *const migrations[] = {
	/* 0 -> 1: the first schema */
	"CREATE TABLE meta ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL);"

	"CREATE TABLE members ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  role TEXT NOT NULL CHECK (role IN ('owner','annotator','adjudicator')),"
	"  active INTEGER NOT NULL DEFAULT 1,"
	"  added_at TEXT NOT NULL);"

	/* every version of the codebook ever loaded; one is current */
	"CREATE TABLE codebooks ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  version TEXT NOT NULL,"
	"  json TEXT NOT NULL,"
	"  source TEXT,"
	"  loaded_at TEXT NOT NULL,"
	"  loaded_by TEXT NOT NULL,"
	"  current INTEGER NOT NULL DEFAULT 0);"

	"CREATE TABLE items ("
	"  id INTEGER PRIMARY KEY,"
	"  repo TEXT NOT NULL,"
	"  number INTEGER NOT NULL,"
	"  title TEXT NOT NULL,"
	"  body TEXT,"
	"  state TEXT,"
	"  state_reason TEXT,"
	"  author TEXT,"
	"  created_at TEXT,"
	"  closed_at TEXT,"
	"  url TEXT,"
	"  labels TEXT NOT NULL DEFAULT '[]',"	/* JSON array of strings */
	"  has_fix INTEGER NOT NULL DEFAULT 0,"
	"  diff_partial INTEGER NOT NULL DEFAULT 0,"
	"  days_open REAL,"
	"  comment_count INTEGER NOT NULL DEFAULT 0,"
	"  additions INTEGER,"
	"  deletions INTEGER,"
	"  changed_files INTEGER,"
	"  lines_changed INTEGER,"
	"  small_fix INTEGER,"
	"  source TEXT,"
	"  imported_at TEXT NOT NULL,"
	"  UNIQUE (repo, number));"

	"CREATE TABLE comments ("
	"  id INTEGER PRIMARY KEY,"
	"  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,"
	"  position INTEGER NOT NULL,"
	"  author TEXT,"
	"  created_at TEXT,"
	"  body TEXT,"
	"  UNIQUE (item_id, position));"

	"CREATE TABLE fixes ("
	"  id INTEGER PRIMARY KEY,"
	"  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,"
	"  position INTEGER NOT NULL,"
	"  number INTEGER,"
	"  title TEXT,"
	"  body TEXT,"
	"  url TEXT,"
	"  merged_at TEXT,"
	"  additions INTEGER,"
	"  deletions INTEGER,"
	"  changed_files INTEGER,"
	"  diff TEXT,"
	"  diff_partial INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (item_id, position));"

	"CREATE TABLE rounds ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  spec TEXT,"			/* --items SPEC or --sample N|P% */
	"  seed INTEGER,"
	"  stratify TEXT,"
	"  created_at TEXT NOT NULL,"
	"  created_by TEXT NOT NULL,"
	"  closed_at TEXT,"
	"  closed_by TEXT);"

	"CREATE TABLE round_annotators ("
	"  round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  PRIMARY KEY (round_id, member_id));"

	"CREATE TABLE assignments ("
	"  round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  position INTEGER NOT NULL,"
	"  PRIMARY KEY (round_id, item_id));"
	"CREATE UNIQUE INDEX assignments_item ON assignments(item_id);"

	"CREATE TABLE proposals ("
	"  id INTEGER PRIMARY KEY,"
	"  dimension TEXT NOT NULL,"
	"  key TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  definition TEXT NOT NULL,"
	"  item_id INTEGER REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  created_at TEXT NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'open'"
	"    CHECK (status IN ('open','accepted','mapped')),"
	"  decided_code TEXT,"
	"  decided_by TEXT,"
	"  decided_at TEXT);"

	/* one row per chosen code */
	"CREATE TABLE labels ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  dimension TEXT NOT NULL,"
	"  code TEXT NOT NULL,"
	"  codebook_version TEXT NOT NULL,"
	"  proposal_id INTEGER REFERENCES proposals(id),"
	"  labeled_at TEXT NOT NULL,"
	"  PRIMARY KEY (item_id, member_id, dimension, code));"
	"CREATE INDEX labels_dim ON labels(dimension, code);"

	"CREATE TABLE submissions ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  submitted_at TEXT NOT NULL,"
	"  PRIMARY KEY (item_id, member_id));"

	"CREATE TABLE memos ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  text TEXT NOT NULL,"
	"  updated_at TEXT NOT NULL,"
	"  PRIMARY KEY (item_id, member_id));"

	"CREATE TABLE flags ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  flag TEXT NOT NULL CHECK (flag IN ('uncertain','discuss')),"
	"  set_at TEXT NOT NULL,"
	"  PRIMARY KEY (item_id, member_id, flag));"

	/* the adjudicator's final code(s) for one item and dimension;
	   several codes are joined by ';' in key order */
	"CREATE TABLE resolutions ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  dimension TEXT NOT NULL,"
	"  code TEXT NOT NULL,"
	"  rationale TEXT NOT NULL,"
	"  cause TEXT CHECK (cause IS NULL OR cause IN"
	"    ('guideline_gap','slip','ambiguous','code_missing')),"
	"  coder1 TEXT,"		/* member shown as Coder 1 */
	"  coder1_codes TEXT,"
	"  coder2 TEXT,"
	"  coder2_codes TEXT,"
	"  adjudicator_id INTEGER NOT NULL REFERENCES members(id),"
	"  resolved_at TEXT NOT NULL,"
	"  PRIMARY KEY (item_id, dimension));"

	/* an adjudicator's word that an item needs nothing more (used for
	   items flagged "discuss" whose labels agree) */
	"CREATE TABLE settled ("
	"  item_id INTEGER PRIMARY KEY REFERENCES items(id),"
	"  adjudicator_id INTEGER NOT NULL REFERENCES members(id),"
	"  note TEXT,"
	"  settled_at TEXT NOT NULL);"

	"CREATE TABLE audit ("
	"  id INTEGER PRIMARY KEY,"
	"  at TEXT NOT NULL,"
	"  actor TEXT NOT NULL,"
	"  for_member TEXT,"
	"  action TEXT NOT NULL,"
	"  item_id INTEGER,"
	"  dimension TEXT,"
	"  old TEXT,"
	"  new TEXT);"
	"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
	"  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;"
	"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit"
	"  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;"

	/* conditional requests: what GitHub last sent for a URL (a diff
	   is keyed "URL#diff"); `link` keeps the Link header, which a 304
	   does not repeat */
	"CREATE TABLE http_cache ("
	"  url TEXT PRIMARY KEY,"
	"  etag TEXT,"
	"  last_modified TEXT,"
	"  link TEXT,"
	"  body BLOB,"
	"  fetched_at TEXT NOT NULL);"

	/* resumable fetches: one row per repository fetched; next_url is
	   the issue list page to resume from */
	"CREATE TABLE fetch_state ("
	"  repo TEXT PRIMARY KEY,"
	"  params TEXT NOT NULL,"
	"  next_url TEXT,"
	"  done INTEGER NOT NULL DEFAULT 0,"
	"  updated_at TEXT NOT NULL);"

	/* every issue a fetch has finished, kept or not, at the updated_at
	   GitHub gave: a later fetch skips it while that is unchanged */
	"CREATE TABLE fetch_issues ("
	"  repo TEXT NOT NULL,"
	"  number INTEGER NOT NULL,"
	"  updated_at TEXT,"
	"  has_fix INTEGER NOT NULL,"
	"  fetched_at TEXT NOT NULL,"
	"  PRIMARY KEY (repo, number));",

	/* 1 -> 2: a round's calibration gate: created only once round
	   `after_round_id` was closed with kappa >= min_kappa on every
	   required dimension (its interval's lower bound when on_lower);
	   `forced` when the owner overrode a gate that did not pass */
	"CREATE TABLE round_gates ("
	"  round_id INTEGER PRIMARY KEY REFERENCES rounds(id),"
	"  after_round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  min_kappa REAL NOT NULL,"
	"  on_lower INTEGER NOT NULL DEFAULT 0,"
	"  forced INTEGER NOT NULL DEFAULT 0);",

	/* 2 -> 3: what a member was typing when the screen was stopped (a
	   rationale, a proposed code), kept for them alone and offered
	   when they open the same dialog again; one row per field */
	"CREATE TABLE drafts ("
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  kind TEXT NOT NULL CHECK (kind IN ('rationale','proposal')),"
	"  dimension TEXT NOT NULL,"
	"  field TEXT NOT NULL,"
	"  text TEXT NOT NULL,"
	"  saved_at TEXT NOT NULL,"
	"  PRIMARY KEY (member_id, item_id, kind, dimension, field));",

	/* 3 -> 4: the audit log is hash-chained (see core/store/audit.h); the
	   existing rows get their hashes in the same transaction, which
	   the new trigger allows only for rows that have none */
	"DROP TRIGGER IF EXISTS audit_no_update;"
	"ALTER TABLE audit ADD COLUMN hash TEXT;"
	"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
	"  WHEN OLD.hash IS NOT NULL"
	"  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;",

	/* 4 -> 5: one identity per item whatever its repository was called
	   (old names of renamed or transferred repositories are aliases of
	   the current one); a fix that repeats an earlier fix of the same
	   item (a cherry-pick, a backport) is marked and left out of the
	   item's sums; an item may be a pull request given alone (its
	   description stands in for the issue), or a name from a list whose
	   content is still to be fetched */
	"CREATE TABLE repo_aliases ("
	"  alias TEXT PRIMARY KEY COLLATE NOCASE,"
	"  repo TEXT NOT NULL,"
	"  noted_at TEXT NOT NULL);"
	"ALTER TABLE fixes ADD COLUMN repeats INTEGER;"	/* position of the
							   fix it repeats */
	"ALTER TABLE items ADD COLUMN kind TEXT NOT NULL DEFAULT 'issue'"
	"  CHECK (kind IN ('issue', 'pull'));"
	"ALTER TABLE items ADD COLUMN missing INTEGER NOT NULL DEFAULT 0;",

	/* 5 -> 6: a closed round is a record: the submissions and labels of
	   its annotators as they stood at its close, and the codebook
	   version then current, which its agreement is computed from
	   whatever later decisions re-map (rounds closed before this step
	   are frozen as they stand now) */
	"CREATE TABLE round_frozen ("
	"  round_id INTEGER PRIMARY KEY REFERENCES rounds(id),"
	"  codebook_id INTEGER REFERENCES codebooks(id),"
	"  frozen_at TEXT NOT NULL);"
	"CREATE TABLE round_submissions ("
	"  round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  item_id INTEGER NOT NULL,"
	"  member_id INTEGER NOT NULL,"
	"  PRIMARY KEY (round_id, item_id, member_id));"
	"CREATE TABLE round_labels ("
	"  round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  item_id INTEGER NOT NULL,"
	"  member_id INTEGER NOT NULL,"
	"  dimension TEXT NOT NULL,"
	"  code TEXT NOT NULL,"
	"  codebook_version TEXT NOT NULL,"
	"  PRIMARY KEY (round_id, item_id, member_id, dimension, code));"
	"INSERT INTO round_frozen (round_id, codebook_id, frozen_at)"
	"  SELECT r.id, (SELECT id FROM codebooks WHERE current), r.closed_at"
	"  FROM rounds r WHERE r.closed_at IS NOT NULL;"
	"INSERT INTO round_submissions (round_id, item_id, member_id)"
	"  SELECT a.round_id, s.item_id, s.member_id FROM submissions s"
	"  JOIN assignments a ON a.item_id = s.item_id"
	"  JOIN round_annotators ra ON ra.round_id = a.round_id"
	"   AND ra.member_id = s.member_id"
	"  JOIN round_frozen f ON f.round_id = a.round_id;"
	"INSERT INTO round_labels (round_id, item_id, member_id, dimension,"
	"  code, codebook_version)"
	"  SELECT rs.round_id, l.item_id, l.member_id, l.dimension, l.code,"
	"  l.codebook_version FROM labels l JOIN round_submissions rs"
	"  ON rs.item_id = l.item_id AND rs.member_id = l.member_id;",

	/* 6 -> 7: the time each member spent coding an item on the screen,
	   idle gaps left out (core/study/drift.h); the owner's alone to see */
	"CREATE TABLE coding_times ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  seconds REAL NOT NULL,"
	"  updated_at TEXT NOT NULL,"
	"  PRIMARY KEY (item_id, member_id));",

	/* 7 -> 8: the lines of the diff or the issue an annotator cites for
	   a label (core/study/evidence.h), blinded like it */
	"CREATE TABLE evidence ("
	"  id INTEGER PRIMARY KEY,"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  dimension TEXT NOT NULL,"
	"  pane TEXT NOT NULL CHECK (pane IN ('diff','issue')),"
	"  path TEXT,"
	"  old_side INTEGER NOT NULL DEFAULT 0,"
	"  comment INTEGER NOT NULL DEFAULT 0,"
	"  line_from INTEGER NOT NULL,"
	"  line_to INTEGER NOT NULL,"
	"  quote TEXT NOT NULL,"
	"  created_at TEXT NOT NULL);"
	"CREATE INDEX evidence_item ON evidence(item_id, member_id);",

	/* 8 -> 9: a machine coder is a member (role 'annotator' in the
	   table, `machine` set) that never logs in and codes only through
	   `machine-code`; each answer it gave is kept with its provenance:
	   the command line, the model and note given, the SHA-256 of the
	   document it read and of the raw answer, the answer itself, how
	   long it took */
	"ALTER TABLE members ADD COLUMN machine INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE machine_answers ("
	"  id INTEGER PRIMARY KEY,"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  command TEXT NOT NULL,"
	"  model TEXT,"
	"  note TEXT,"
	"  codebook_version TEXT NOT NULL,"
	"  input_sha256 TEXT NOT NULL,"
	"  answer_sha256 TEXT NOT NULL,"
	"  answer TEXT NOT NULL,"
	"  rationale TEXT,"
	"  duration_ms INTEGER NOT NULL,"
	"  answered_at TEXT NOT NULL);"
	"CREATE INDEX machine_answers_member ON machine_answers"
	"  (member_id, item_id);",

	/* 9 -> 10: a pull request's conversation (its comments), and
	   evidence citing a pull request's description or comments: pane
	   'pr', `pr` the pull request's number (core/study/evidence.h) */
	"CREATE TABLE fix_comments ("
	"  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,"
	"  fix INTEGER NOT NULL,"		/* fixes.position */
	"  position INTEGER NOT NULL,"
	"  author TEXT,"
	"  created_at TEXT,"
	"  body TEXT,"
	"  PRIMARY KEY (item_id, fix, position));"
	"CREATE TABLE evidence_v10 ("
	"  id INTEGER PRIMARY KEY,"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  dimension TEXT NOT NULL,"
	"  pane TEXT NOT NULL CHECK (pane IN ('diff','issue','pr')),"
	"  path TEXT,"
	"  old_side INTEGER NOT NULL DEFAULT 0,"
	"  comment INTEGER NOT NULL DEFAULT 0,"
	"  line_from INTEGER NOT NULL,"
	"  line_to INTEGER NOT NULL,"
	"  quote TEXT NOT NULL,"
	"  created_at TEXT NOT NULL,"
	"  pr INTEGER);"
	"INSERT INTO evidence_v10 (id, item_id, member_id, dimension, pane,"
	"  path, old_side, comment, line_from, line_to, quote, created_at)"
	"  SELECT id, item_id, member_id, dimension, pane, path, old_side,"
	"  comment, line_from, line_to, quote, created_at FROM evidence;"
	"DROP TABLE evidence;"
	"ALTER TABLE evidence_v10 RENAME TO evidence;"
	"CREATE INDEX evidence_item ON evidence(item_id, member_id);",

	/* 10 -> 11: the study's state is checked against a replay of the
	   audit log (core/study/replay.h).  A row says what it changed in `detail`
	   (JSON) where old and new do not say it all; the state a study had
	   when it came to this version is kept as the replay's baseline, in
	   the replay_base_* tables (empty for a study made at this version
	   or later), its digest in the audit row that took it */
	"ALTER TABLE audit ADD COLUMN detail TEXT;"
	"CREATE TABLE replay_base_meta ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT);"
	"CREATE TABLE replay_base_members ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT,"
	"  role TEXT,"
	"  active INTEGER,"
	"  machine INTEGER,"
	"  added_at TEXT);"
	"CREATE TABLE replay_base_codebooks ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT,"
	"  version TEXT,"
	"  sha256 TEXT,"			/* of the JSON */
	"  source TEXT,"
	"  loaded_at TEXT,"
	"  loaded_by TEXT,"
	"  current INTEGER);"
	"CREATE TABLE replay_base_rounds ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT,"
	"  spec TEXT,"
	"  seed INTEGER,"
	"  stratify TEXT,"
	"  created_at TEXT,"
	"  created_by TEXT,"
	"  closed_at TEXT,"
	"  closed_by TEXT);"
	"CREATE TABLE replay_base_round_annotators ("
	"  round_id INTEGER,"
	"  member_id INTEGER);"
	"CREATE TABLE replay_base_assignments ("
	"  round_id INTEGER,"
	"  item_id INTEGER,"
	"  position INTEGER);"
	"CREATE TABLE replay_base_round_gates ("
	"  round_id INTEGER,"
	"  after_round_id INTEGER,"
	"  min_kappa REAL,"
	"  on_lower INTEGER,"
	"  forced INTEGER);"
	"CREATE TABLE replay_base_round_frozen ("
	"  round_id INTEGER,"
	"  codebook_id INTEGER,"
	"  frozen_at TEXT);"
	"CREATE TABLE replay_base_round_submissions ("
	"  round_id INTEGER,"
	"  item_id INTEGER,"
	"  member_id INTEGER);"
	"CREATE TABLE replay_base_round_labels ("
	"  round_id INTEGER,"
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  dimension TEXT,"
	"  code TEXT,"
	"  codebook_version TEXT);"
	"CREATE TABLE replay_base_proposals ("
	"  id INTEGER PRIMARY KEY,"
	"  dimension TEXT,"
	"  key TEXT,"
	"  name TEXT,"
	"  definition TEXT,"
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  created_at TEXT,"
	"  status TEXT,"
	"  decided_code TEXT,"
	"  decided_by TEXT,"
	"  decided_at TEXT);"
	"CREATE TABLE replay_base_labels ("
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  dimension TEXT,"
	"  code TEXT,"
	"  codebook_version TEXT,"
	"  proposal_id INTEGER,"
	"  labeled_at TEXT);"
	"CREATE TABLE replay_base_submissions ("
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  submitted_at TEXT);"
	"CREATE TABLE replay_base_memos ("
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  text TEXT,"
	"  updated_at TEXT);"
	"CREATE TABLE replay_base_flags ("
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  flag TEXT,"
	"  set_at TEXT);"
	"CREATE TABLE replay_base_resolutions ("
	"  item_id INTEGER,"
	"  dimension TEXT,"
	"  code TEXT,"
	"  rationale TEXT,"
	"  cause TEXT,"
	"  coder1 TEXT,"
	"  coder1_codes TEXT,"
	"  coder2 TEXT,"
	"  coder2_codes TEXT,"
	"  adjudicator_id INTEGER,"
	"  resolved_at TEXT);"
	"CREATE TABLE replay_base_settled ("
	"  item_id INTEGER,"
	"  adjudicator_id INTEGER,"
	"  note TEXT,"
	"  settled_at TEXT);"
	"CREATE TABLE replay_base_evidence ("
	"  id INTEGER PRIMARY KEY,"
	"  item_id INTEGER,"
	"  member_id INTEGER,"
	"  dimension TEXT,"
	"  pane TEXT,"
	"  path TEXT,"
	"  old_side INTEGER,"
	"  comment INTEGER,"
	"  line_from INTEGER,"
	"  line_to INTEGER,"
	"  quote TEXT,"
	"  created_at TEXT,"
	"  pr INTEGER);"
	"CREATE TABLE replay_base_machine_answers ("
	"  id INTEGER PRIMARY KEY,"
	"  member_id INTEGER,"
	"  item_id INTEGER,"
	"  command TEXT,"
	"  model TEXT,"
	"  note TEXT,"
	"  codebook_version TEXT,"
	"  input_sha256 TEXT,"
	"  answer_sha256 TEXT,"
	"  answer_hash TEXT,"		/* SHA-256 of the answer as stored */
	"  rationale TEXT,"
	"  duration_ms INTEGER,"
	"  answered_at TEXT);",

	/* 11 -> 12: the study's design.  A round codes its items against
	   the codebook (`kind` 'code') or screens them (`kind` 'screen'):
	   each screener answers one question, inclusion, with `include`
	   or one of the round's exclusion `reasons` (a JSON array of
	   keys).  Screening keeps tables of its own, apart from the
	   codebook's labels and submissions, so an item screened and then
	   coded has both records: its place in a screening round (one at
	   a time), each screener's answer and submission, and the
	   decision that lets it into coding rounds or keeps it out with
	   its reason - agreed when the screening round closes with every
	   screener's answer the same, or adjudicated.  A code split into
	   others leaves each of its labels to be recoded by its coder
	   between the new codes: a row per label, `done_at` set once
	   recoded. */
	"ALTER TABLE rounds ADD COLUMN kind TEXT NOT NULL DEFAULT 'code'"
	"  CHECK (kind IN ('code', 'screen'));"
	"ALTER TABLE rounds ADD COLUMN reasons TEXT;"
	"CREATE TABLE screen_assignments ("
	"  round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  position INTEGER NOT NULL,"
	"  PRIMARY KEY (round_id, item_id));"
	"CREATE UNIQUE INDEX screen_assignments_item ON"
	"  screen_assignments(item_id);"
	"CREATE TABLE screen_labels ("
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  code TEXT NOT NULL,"
	"  labeled_at TEXT NOT NULL,"
	"  submitted_at TEXT,"
	"  PRIMARY KEY (item_id, member_id));"
	"CREATE TABLE screen_decisions ("
	"  item_id INTEGER PRIMARY KEY REFERENCES items(id),"
	"  round_id INTEGER NOT NULL REFERENCES rounds(id),"
	"  code TEXT NOT NULL,"		/* include, or the reason */
	"  how TEXT NOT NULL CHECK (how IN ('agreed', 'adjudicated')),"
	"  rationale TEXT,"
	"  cause TEXT CHECK (cause IS NULL OR cause IN"
	"    ('guideline_gap','slip','ambiguous','code_missing')),"
	"  decided_by TEXT NOT NULL,"
	"  decided_at TEXT NOT NULL);"
	"CREATE TABLE recodes ("
	"  id INTEGER PRIMARY KEY,"
	"  item_id INTEGER NOT NULL REFERENCES items(id),"
	"  member_id INTEGER NOT NULL REFERENCES members(id),"
	"  dimension TEXT NOT NULL,"
	"  old_code TEXT NOT NULL,"
	"  new_codes TEXT NOT NULL,"	/* ';'-joined: the codes to choose
					   between */
	"  codebook_version TEXT NOT NULL,"	/* the version that split */
	"  split_at TEXT NOT NULL,"
	"  done_at TEXT);"
	"CREATE INDEX recodes_member ON recodes(member_id, item_id);"
	"CREATE INDEX recodes_item ON recodes(item_id, dimension);",

	/* 12 -> 13: the items never fetched, found without reading every
	   item (the queue asks on every screen's open; the items' rows
	   hold their bodies, so a scan reads most of the study) */
	"CREATE INDEX items_missing ON items(id) WHERE missing;",
};

#endif
