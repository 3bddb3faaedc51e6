/*
 * admin.h - the operator's commands, run instead of the server:
 * `chameleon backup FILE [--db DB]` (an online copy of an SQLite database)
 * and `chameleon set-aside [--db DB] [--migrations DIR] [--clear ID]` (the
 * games set aside at a start: store_aside.h). Their usage is main.c's.
 *
 * Owns: those commands' arguments and exit statuses.
 * May call: store.h, store_aside.h, log.h, libuv (a loop for the store).
 */
#ifndef ADMIN_H
#define ADMIN_H

enum { ADMIN_NOT_ONE = -1 };

/* Run the command argv[1] names: its exit status, or ADMIN_NOT_ONE when
 * argv[1] is no such command. datadir: where the installed server finds
 * its migrations (config_datadir), or NULL. */
int admin_main(int argc, char **argv, const char *datadir);

#endif
