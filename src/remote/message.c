/*
 * remote_message: the messages the protocols of offload-link-remote.so hand
 * back (remote_protocol.h); the protocols use it, the module's table lists
 * them, and neither calls the other.
 */
#include "offload/remote_protocol.h"

#include <stdarg.h>
#include <stdio.h>

char *ol_remote_message(const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	return text;
}
