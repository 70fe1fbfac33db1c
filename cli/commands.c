/* SPDX-License-Identifier: MIT */
/*
 * commands: every command of bugcoder, in the order `bugcoder --help`
 * lists them.  Each command's struct command, with its options table
 * (options.h), is defined next to its function.
 */
#include "cli/cli.h"
#include "cli/options.h"

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
	&backup_command,
	&doctor_command,
};

const size_t nr_commands = sizeof(commands) / sizeof(commands[0]);
