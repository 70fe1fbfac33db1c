/* SPDX-License-Identifier: MIT */
/*
 * commands: every command of bugcoder, in the order `bugcoder --help`
 * lists them.  A command whose options are declared in a table
 * (options.h) defines its struct command next to its function; the
 * others are described here by name and summary only.
 */
#include "cli/cli.h"
#include "cli/options.h"

#define PLAIN(id, n, f, s) \
	static const struct command id##_plain = { n, f, s, NULL, NULL, NULL, \
						   NULL, NULL }

PLAIN(backup, "backup", cmd_backup, "write a consistent copy of the study");
PLAIN(doctor, "doctor", cmd_doctor, "check the installation and the study");

const struct command *const commands[] = {
	&init_command,
	&member_command,
	&study_command,
	&codebook_command,
	&import_command,
	&fetch_command,
	&items_command,
	&round_command,
	&code_command,
	&label_command,
	&labels_command,
	&evidence_command,
	&machine_code_command,
	&agree_command,
	&adjudicate_command,
	&resolve_command,
	&disagreements_command,
	&proposals_command,
	&export_command,
	&report_command,
	&status_command,
	&audit_command,
	&backup_plain,
	&doctor_plain,
};

const size_t nr_commands = sizeof(commands) / sizeof(commands[0]);
