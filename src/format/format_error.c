/*
 * format_error: the message store of ol_format_fail() (format_internal.h).
 */
#include "format_internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char format_message[256];

int ol_format_fail(const char **why, uint64_t *bad_offset, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(format_message, sizeof(format_message), fmt, ap);
	va_end(ap);
	*why = format_message;
	if (bad_offset)
		*bad_offset = offset;
	return -1;
}
