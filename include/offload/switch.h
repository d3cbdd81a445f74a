/*
 * switch: what makes the installed clang releases run offload-link in place
 * of their clang-linker-wrapper (src/switch/switch.c, docs/design/switch.md): it edits clang's configuration files, and handles no image.
 * Each is a command of its own (`offload-link enable|disable|status`).
 */
#ifndef OFFLOAD_SWITCH_H
#define OFFLOAD_SWITCH_H

int ol_enable_command(int argc, char **argv);
int ol_disable_command(int argc, char **argv);
int ol_status_command(int argc, char **argv);

#endif
