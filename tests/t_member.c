/* SPDX-License-Identifier: MIT */
/*
 * t_member: identity from the OS account, --as for the owner only, roles,
 * adding and removing members, the last owner protected, the audit trail;
 * and study_create(), which makes the OS account the owner and stores the
 * codebook.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "core/study/study.h"

struct fixture {
	struct store st;
	char *me;		/* the OS account running the tests */
	struct actor owner;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;
	sqlite3_stmt *s;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, &e) < 0)
		return -1;
	f->me = member_os_user();
	s = store_prepare(&f->st, "INSERT INTO members (name, role, "
			  "added_at) VALUES (?, 'owner', 'x')", &e);
	sqlite3_bind_text(s, 1, f->me, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		return -1;
	sqlite3_finalize(s);
	if (member_resolve(&f->st, NULL, &f->owner, &e) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	actor_release(&f->owner);
	store_close(&f->st);
	free(f->me);
	free(f);
	unsetenv("BUGCODER_NOW");
	return 0;
}

static long long q(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v;

	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The last audit row as "actor|for|action|old|new". */
static char *last_audit(struct store *st)
{
	sqlite3_stmt *s = NULL;
	struct buf b = BUF_INIT;
	int i;

	assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT actor, "
			 "for_member, action, old, new FROM audit ORDER BY id "
			 "DESC LIMIT 1", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	for (i = 0; i < 5; i++) {
		const char *t = (const char *)sqlite3_column_text(s, i);

		buf_addf(&b, "%s%s", i ? "|" : "", t ? t : "NULL");
	}
	sqlite3_finalize(s);
	return buf_detach(&b, NULL);
}

static void assert_last_audit(struct fixture *f, const char *fmt_for_me)
{
	struct buf want = BUF_INIT;
	char *got = last_audit(&f->st);
	const char *p;

	/* "@" in the pattern stands for the OS account */
	for (p = fmt_for_me; *p; p++)
		if (*p == '@')
			buf_addstr(&want, f->me);
		else
			buf_addch(&want, *p);
	if (strcmp(got, want.ptr))
		fail_msg("audit \"%s\", want \"%s\"", got, want.ptr);
	free(got);
	buf_release(&want);
}

static void test_os_user(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	char *me = member_os_user();

	(void)state;
	assert_non_null(pw);
	assert_string_equal(me, pw->pw_name);
	free(me);
}

static void test_roles(void **state)
{
	(void)state;
	assert_string_equal(role_name(ROLE_OWNER), "owner");
	assert_string_equal(role_name(ROLE_ANNOTATOR), "annotator");
	assert_string_equal(role_name(ROLE_ADJUDICATOR), "adjudicator");
	assert_string_equal(role_name(ROLE_NONE), "none");
	assert_int_equal(role_parse("owner"), ROLE_OWNER);
	assert_int_equal(role_parse("annotator"), ROLE_ANNOTATOR);
	assert_int_equal(role_parse("adjudicator"), ROLE_ADJUDICATOR);
	assert_int_equal(role_parse("Owner"), ROLE_NONE);
	assert_int_equal(role_parse(""), ROLE_NONE);
	assert_int_equal(role_parse("admin"), ROLE_NONE);
}

static void test_valid_name(void **state)
{
	char name[70];

	(void)state;
	assert_true(member_valid_name("alice"));
	assert_true(member_valid_name("a.b-c_d@example"));
	assert_true(member_valid_name("uid1000"));
	assert_false(member_valid_name(""));
	assert_false(member_valid_name("-rf"));
	assert_false(member_valid_name("a b"));
	assert_false(member_valid_name("a/b"));
	assert_false(member_valid_name("a;b"));
	assert_false(member_valid_name("\x1b[2J"));
	assert_false(member_valid_name("caf\xc3\xa9"));
	memset(name, 'a', 64);
	name[64] = '\0';
	assert_true(member_valid_name(name));
	name[64] = 'a';
	name[65] = '\0';
	assert_false(member_valid_name(name));
}

static void test_resolve_owner(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(f->owner.os_user, f->me);
	assert_string_equal(f->owner.name, f->me);
	assert_int_equal(f->owner.role, ROLE_OWNER);
	assert_true(f->owner.member_id > 0);
	assert_int_equal(f->owner.acting_for, 0);
	assert_null(actor_for(&f->owner));
	assert_int_equal(actor_require(&f->owner, ROLES(ROLE_OWNER), "x",
				       NULL), 0);
}

static void test_resolve_as(void **state)
{
	struct fixture *f = *state;
	struct actor a = ACTOR_INIT;
	struct err e = ERR_INIT;
	long long alice_id;

	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ANNOTATOR, &e), 0);
	alice_id = q(&f->st, "SELECT id FROM members WHERE name = 'alice'");
	assert_int_equal(member_resolve(&f->st, "alice", &a, &e), 0);
	assert_string_equal(a.os_user, f->me);
	assert_string_equal(a.name, "alice");
	assert_int_equal(a.member_id, alice_id);
	assert_int_equal(a.role, ROLE_ANNOTATOR);
	assert_int_equal(a.acting_for, 1);
	assert_string_equal(actor_for(&a), "alice");
	/* alice may not do an owner's things, even through the owner */
	assert_int_equal(actor_require(&a, ROLES(ROLE_OWNER), "import", &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "import: not allowed for alice "
			    "(annotator)");
	actor_release(&a);
	assert_null(a.name);

	/* --as naming oneself is no acting for anyone */
	assert_int_equal(member_resolve(&f->st, f->me, &a, &e), 0);
	assert_int_equal(a.acting_for, 0);
	assert_null(actor_for(&a));
	assert_int_equal(a.role, ROLE_OWNER);
	actor_release(&a);

	/* --as an unknown name */
	err_clear(&e);
	assert_int_equal(member_resolve(&f->st, "mallory", &a, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_string_equal(e.msg, "mallory: not a member of this study");
	assert_null(a.name);
	assert_null(a.os_user);
}

static void test_as_only_for_owner(void **state)
{
	struct fixture *f = *state;
	struct actor a = ACTOR_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ANNOTATOR, &e), 0);
	assert_int_equal(member_add(&f->st, &f->owner, "bob",
				    ROLE_ADJUDICATOR, &e), 0);
	/* the OS account becomes a mere annotator... */
	assert_int_equal(store_exec(&f->st, "UPDATE members SET role = "
				    "'annotator' WHERE role = 'owner'", &e), 0);
	/* ...and may no longer act for anyone */
	assert_int_equal(member_resolve(&f->st, "alice", &a, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "--as alice: only the study's owner may "
			    "act for another member");
	assert_int_equal(member_resolve(&f->st, "bob", &a, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	/* but is still itself */
	assert_int_equal(member_resolve(&f->st, NULL, &a, &e), 0);
	assert_int_equal(a.role, ROLE_ANNOTATOR);
	actor_release(&a);
}

static void test_not_a_member(void **state)
{
	struct fixture *f = *state;
	struct actor a = ACTOR_INIT;
	struct err e = ERR_INIT;
	struct buf want = BUF_INIT;

	assert_int_equal(store_exec(&f->st, "DELETE FROM members", &e), 0);
	assert_int_equal(member_resolve(&f->st, NULL, &a, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	buf_addf(&want, "%s is not a member of this study (the owner adds "
		 "members with `bugcoder member add`)", f->me);
	assert_string_equal(e.msg, want.ptr);
	buf_release(&want);

	/* read-only commands may still look */
	assert_int_equal(member_resolve_any(&f->st, NULL, &a, &e), 0);
	assert_int_equal(a.role, ROLE_NONE);
	assert_int_equal(a.member_id, 0);
	assert_string_equal(a.name, f->me);
	assert_int_equal(actor_require(&a, ROLES(ROLE_OWNER) |
				       ROLES(ROLE_ANNOTATOR), "label", &e), -1);
	assert_non_null(strstr(e.msg, "not a member"));
	actor_release(&a);

	/* a non-member may not use --as either */
	assert_int_equal(member_resolve_any(&f->st, "alice", &a, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
}

static void test_add_and_change_role(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	long long id;
	enum role r;

	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ANNOTATOR, &e), 0);
	assert_last_audit(f, "@|NULL|member.add|NULL|alice=annotator");
	assert_int_equal(member_find(&f->st, "alice", &id, &r, &e), 0);
	assert_int_equal(r, ROLE_ANNOTATOR);
	assert_true(id > 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM members WHERE "
			   "name = 'alice' AND added_at = "
			   "'2024-06-01T00:00:00Z' AND active"), 1);

	/* adding again changes the role, keeping the id */
	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ADJUDICATOR, &e), 0);
	assert_last_audit(f, "@|NULL|member.add|alice=annotator|"
			  "alice=adjudicator");
	assert_int_equal(q(&f->st, "SELECT id FROM members WHERE name = "
			   "'alice'"), id);
	assert_int_equal(member_find(&f->st, "alice", NULL, &r, &e), 0);
	assert_int_equal(r, ROLE_ADJUDICATOR);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM members"), 2);
}

static void test_add_refused(void **state)
{
	struct fixture *f = *state;
	struct actor a = ACTOR_INIT;
	struct err e = ERR_INIT;
	long long audit;

	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ANNOTATOR, &e), 0);
	audit = q(&f->st, "SELECT count(*) FROM audit");

	assert_int_equal(member_add(&f->st, &f->owner, "bad name",
				    ROLE_ANNOTATOR, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "bad name: not a valid member name (an OS "
			    "account name)");
	assert_int_equal(member_add(&f->st, &f->owner, "carol", ROLE_NONE,
				    &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "unknown role"));

	/* only the owner adds members */
	assert_int_equal(member_resolve(&f->st, "alice", &a, &e), 0);
	assert_int_equal(member_add(&f->st, &a, "carol", ROLE_ANNOTATOR, &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "member add: not allowed for alice "
			    "(annotator)");
	assert_int_equal(member_remove(&f->st, &a, f->me, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	actor_release(&a);

	assert_int_equal(q(&f->st, "SELECT count(*) FROM members"), 2);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit"), audit);
	assert_int_equal(f->st.depth, 0);
}

static void test_remove_and_readd(void **state)
{
	struct fixture *f = *state;
	struct actor a = ACTOR_INIT;
	struct err e = ERR_INIT;
	long long id;

	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ANNOTATOR, &e), 0);
	id = q(&f->st, "SELECT id FROM members WHERE name = 'alice'");
	/* alice labels something */
	assert_int_equal(store_exec(&f->st, "INSERT INTO items (repo, number, "
				    "title, imported_at) VALUES ('o/r', 1, "
				    "'t', 'x')", &e), 0);
	assert_int_equal(store_exec(&f->st, "INSERT INTO labels SELECT 1, id, "
				    "'symptom', 'hang', '1.0', NULL, 'x' FROM "
				    "members WHERE name = 'alice'", &e), 0);

	assert_int_equal(member_remove(&f->st, &f->owner, "alice", &e), 0);
	assert_last_audit(f, "@|NULL|member.remove|alice|NULL");
	err_clear(&e);
	assert_int_equal(member_find(&f->st, "alice", NULL, NULL, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	/* her labels stay */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels"), 1);
	/* and she can no longer be acted for */
	assert_int_equal(member_resolve(&f->st, "alice", &a, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);

	/* removing again: not a member */
	assert_int_equal(member_remove(&f->st, &f->owner, "alice", &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_int_equal(member_remove(&f->st, &f->owner, "nobody", &e), -1);
	assert_string_equal(e.msg, "nobody: not a member of this study");

	/* re-adding brings back the same member */
	assert_int_equal(member_add(&f->st, &f->owner, "alice",
				    ROLE_ANNOTATOR, &e), 0);
	assert_last_audit(f, "@|NULL|member.add|alice=annotator (removed)|"
			  "alice=annotator");
	assert_int_equal(q(&f->st, "SELECT id FROM members WHERE name = "
			   "'alice' AND active"), id);
	assert_int_equal(f->st.depth, 0);
}

static void test_last_owner_protected(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	struct buf want = BUF_INIT;
	long long audit = q(&f->st, "SELECT count(*) FROM audit");

	assert_int_equal(member_remove(&f->st, &f->owner, f->me, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	buf_addf(&want, "%s is the only owner and cannot be removed", f->me);
	assert_string_equal(e.msg, want.ptr);

	/* nor demoted */
	err_clear(&e);
	assert_int_equal(member_add(&f->st, &f->owner, f->me, ROLE_ANNOTATOR,
				    &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	buf_reset(&want);
	buf_addf(&want, "%s is the only owner; add another owner first",
		 f->me);
	assert_string_equal(e.msg, want.ptr);
	buf_release(&want);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM members WHERE role "
			   "= 'owner' AND active"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit"), audit);
	assert_int_equal(f->st.depth, 0);

	/* with a second owner, the first may step down */
	assert_int_equal(member_add(&f->st, &f->owner, "carol", ROLE_OWNER,
				    &e), 0);
	assert_int_equal(member_add(&f->st, &f->owner, f->me,
				    ROLE_ADJUDICATOR, &e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM members WHERE role "
			   "= 'owner' AND active"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM members WHERE name "
			   "= 'carol' AND role = 'owner'"), 1);
}

static void test_remove_one_of_two_owners(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(member_add(&f->st, &f->owner, "carol", ROLE_OWNER,
				    &e), 0);
	assert_int_equal(member_remove(&f->st, &f->owner, "carol", &e), 0);
	assert_int_equal(q(&f->st, "SELECT active FROM members WHERE name "
			   "= 'carol'"), 0);
	/* now the OS account is the last one again */
	assert_int_equal(member_remove(&f->st, &f->owner, f->me, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
}

static void test_audit_records_acting_for(void **state)
{
	struct fixture *f = *state;
	struct actor dave = ACTOR_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(member_add(&f->st, &f->owner, "dave", ROLE_OWNER,
				    &e), 0);
	assert_int_equal(member_resolve(&f->st, "dave", &dave, &e), 0);
	assert_int_equal(dave.role, ROLE_OWNER);
	assert_int_equal(member_add(&f->st, &dave, "erin", ROLE_ANNOTATOR,
				    &e), 0);
	/* both the account that ran it and the member acted for */
	assert_last_audit(f, "@|dave|member.add|NULL|erin=annotator");
	assert_int_equal(member_remove(&f->st, &dave, "erin", &e), 0);
	assert_last_audit(f, "@|dave|member.remove|erin|NULL");
	actor_release(&dave);
}

/* ---- study_create ------------------------------------------------------ */

static char *study_path(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

static void test_study_create(void **state)
{
	char dir[] = "/tmp/t_member.XXXXXX", cmd[64];
	char *path, *v, *me = member_os_user();
	struct store st;
	struct codebook cb = CODEBOOK_INIT;
	struct actor a = ACTOR_INIT;
	struct err e = ERR_INIT;
	long long id = 0;

	(void)state;
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	assert_non_null(mkdtemp(dir));
	path = study_path(dir, "s.db");
	assert_int_equal(study_create(&st, path, "LLM bugs",
				      "codebooks/llm-framework-bugs.json", &e),
			 0);
	/* the OS account is the owner, and the only member */
	assert_int_equal(member_resolve(&st, NULL, &a, &e), 0);
	assert_string_equal(a.name, me);
	assert_int_equal(a.role, ROLE_OWNER);
	actor_release(&a);
	assert_int_equal(q(&st, "SELECT count(*) FROM members"), 1);
	v = store_meta_get(&st, "title");
	assert_string_equal(v, "LLM bugs");
	free(v);
	v = store_meta_get(&st, "created_at");
	assert_string_equal(v, "2024-06-01T00:00:00Z");
	free(v);

	/* the codebook is stored and current */
	assert_int_equal(study_codebook(&st, &cb, &id, &e), 0);
	assert_true(id > 0);
	assert_string_equal(cb.name, "llm-framework-bugs");
	assert_string_equal(cb.version, "1.0");
	assert_int_equal(cb.nr_dims, 5);
	codebook_release(&cb);
	assert_int_equal(q(&st, "SELECT count(*) FROM codebooks WHERE current "
			   "AND source = 'codebooks/llm-framework-bugs.json'"),
			 1);
	assert_int_equal(q(&st, "SELECT count(*) FROM audit WHERE action IN "
			   "('study.init', 'codebook.load')"), 2);

	/* a new version replaces it as current; the old one is kept */
	{
		struct buf json = BUF_INIT;

		assert_int_equal(buf_read_file(&json, "codebooks/"
					       "dl-framework-bugs.json"), 0);
		assert_int_equal(codebook_parse(&cb, json.ptr, json.len,
						"dl", &e), 0);
		assert_int_equal(store_begin(&st, &e), 0);
		assert_int_equal(study_store_codebook(&st, &cb, json.ptr,
						      "dl.json", me, NULL, &e),
				 0);
		assert_int_equal(store_commit(&st, &e), 0);
		codebook_release(&cb);
		buf_release(&json);
	}
	assert_int_equal(study_codebook(&st, &cb, NULL, &e), 0);
	assert_string_equal(cb.name, "dl-framework-bugs");
	codebook_release(&cb);
	assert_int_equal(q(&st, "SELECT count(*) FROM codebooks"), 2);
	assert_int_equal(q(&st, "SELECT count(*) FROM codebooks WHERE "
			   "current"), 1);
	assert_int_equal(q(&st, "SELECT count(*) FROM codebooks WHERE current "
			   "AND name = 'dl-framework-bugs'"), 1);
	store_close(&st);

	/* over an existing study: refused, the study kept */
	assert_int_equal(study_create(&st, path, NULL, NULL, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, "a bugcoder study is there already"));
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(q(&st, "SELECT count(*) FROM codebooks"), 2);
	store_close(&st);

	free(path);
	free(me);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	unsetenv("BUGCODER_NOW");
}

static void test_study_create_failures_leave_nothing(void **state)
{
	char dir[] = "/tmp/t_member.XXXXXX", cmd[64];
	char *path;
	struct store st;
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = study_path(dir, "s.db");
	/* a bad codebook: no file at all */
	assert_int_equal(study_create(&st, path, NULL, "tests/fixtures/"
				      "codebooks/bad-select.json", &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "bad-select.json:"));
	assert_int_equal(access(path, F_OK), -1);
	/* an unreadable codebook */
	assert_int_equal(study_create(&st, path, NULL, "no/such/codebook.json",
				      &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, "no/such/codebook.json"));
	assert_int_equal(access(path, F_OK), -1);

	/* without a codebook the study has none yet */
	assert_int_equal(study_create(&st, path, NULL, NULL, &e), 0);
	assert_int_equal(study_codebook(&st, &cb, NULL, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_non_null(strstr(e.msg, "the study has no codebook yet"));
	store_close(&st);

	free(path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_release_null(void **state)
{
	struct actor a = ACTOR_INIT;

	(void)state;
	actor_release(NULL);
	actor_release(&a);
	assert_null(a.name);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_os_user),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_valid_name),
		T(test_resolve_owner),
		T(test_resolve_as),
		T(test_as_only_for_owner),
		T(test_not_a_member),
		T(test_add_and_change_role),
		T(test_add_refused),
		T(test_remove_and_readd),
		T(test_last_owner_protected),
		T(test_remove_one_of_two_owners),
		T(test_audit_records_acting_for),
		cmocka_unit_test(test_study_create),
		cmocka_unit_test(test_study_create_failures_leave_nothing),
		cmocka_unit_test(test_release_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
