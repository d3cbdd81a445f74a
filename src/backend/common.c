/*
 * common: messages, strings and the per-context diagnostic handler shared by
 * the files of the backend module.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

static const char *progname = "offload-link";

const char *ol_be_progname(void)
{
	return progname;
}

void ol_be_set_progname(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	/* argv[0] outlives the link (it is main's argv), no copy needed. */
	progname = slash ? slash + 1 : argv0;
}

char *ol_be_strndup(const char *s, size_t n)
{
	char *copy = malloc(n + 1);

	if (!copy)
		return NULL;
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}

char *ol_be_strdup(const char *s)
{
	return ol_be_strndup(s, strlen(s));
}

OL_BE_PRINTF(1, 0) static char *vformat(const char *fmt, va_list ap)
{
	va_list copy;
	int n;
	char *text;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return NULL;
	text = malloc((size_t)n + 1);
	if (!text)
		return NULL;
	vsnprintf(text, (size_t)n + 1, fmt, ap);
	return text;
}

void *ol_be_grow(void *array, size_t *capacity, size_t count, size_t size, size_t first)
{
	size_t grown;
	void *more;

	if (count < *capacity)
		return array;
	grown = *capacity ? 2 * *capacity : first;
	more = realloc(array, grown * size);
	if (more)
		*capacity = grown;
	return more;
}

void ol_be_msg_addf(struct ol_be_msg *msg, const char *fmt, ...)
{
	va_list ap;
	char *line, *grown;
	size_t n;

	va_start(ap, fmt);
	line = vformat(fmt, ap);
	va_end(ap);
	if (!line) {
		msg->failed_alloc = 1;
		return;
	}
	n = strlen(line);
	/* One message per line; the caller prints the whole text after its
	 * own "error: " prefix. */
	grown = realloc(msg->text, msg->len + n + 2);
	if (!grown) {
		free(line);
		msg->failed_alloc = 1;
		return;
	}
	msg->text = grown;
	if (msg->len)
		msg->text[msg->len++] = '\n';
	memcpy(msg->text + msg->len, line, n + 1);
	msg->len += n;
	free(line);
}

int ol_be_msg_fail(struct ol_be_msg *msg, char **err, const char *fallback)
{
	if (err) {
		if (msg->text) {
			*err = msg->text;
			msg->text = NULL;
		} else {
			*err = ol_be_strdup(msg->failed_alloc ? "out of memory" : fallback);
		}
	}
	ol_be_msg_release(msg);
	return -1;
}

void ol_be_msg_release(struct ol_be_msg *msg)
{
	free(msg->text);
	msg->text = NULL;
	msg->len = 0;
	msg->failed_alloc = 0;
}

int ol_be_fail(char **err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	*err = vformat(fmt, ap);
	va_end(ap);
	return -1;
}

int ol_be_fail_llvm_error(char **err, LLVMErrorRef e, const char *what)
{
	char *text = LLVMGetErrorMessage(e);
	int rc = ol_be_fail(err, "%s: %s", what, text ? text : "unknown error");

	LLVMDisposeErrorMessage(text);
	return rc;
}

char *ol_be_take_message(char *llvm_message)
{
	char *copy;

	if (!llvm_message)
		return NULL;
	copy = ol_be_strdup(llvm_message);
	LLVMDisposeMessage(llvm_message);
	return copy;
}

void ol_be_diag_handler(LLVMDiagnosticInfoRef info, void *opaque)
{
	struct ol_be_diag *diag = opaque;
	char *text = LLVMGetDiagInfoDescription(info);
	const char *desc = text ? text : "(no description)";

	switch (LLVMGetDiagInfoSeverity(info)) {
	case LLVMDSError:
		diag->nerrors++;
		if (diag->module)
			ol_be_msg_addf(&diag->errors, "%s: %s", diag->module, desc);
		else
			ol_be_msg_addf(&diag->errors, "%s", desc);
		break;
	case LLVMDSWarning:
		/* Upstream's LTO handler prints these with the tool name; keep
		 * one fprintf per message so concurrent jobs do not interleave
		 * within a line. */
		fprintf(stderr, "%s: warning: %s%s%s\n", progname,
			diag->module ? diag->module : "", diag->module ? ": " : "", desc);
		break;
	case LLVMDSNote:
		fprintf(stderr, "%s: note: %s\n", progname, desc);
		break;
	case LLVMDSRemark:
		/* The C API handler sees every remark, wanted or not (codegen
		 * alone reports instruction counts); a link that wants remarks
		 * collects them with remarks.cpp's handler instead. */
		break;
	}
	LLVMDisposeMessage(text);
}

LLVMContextRef ol_be_context_create(struct ol_be_diag *diag)
{
	LLVMContextRef ctx = LLVMContextCreate();

	memset(diag, 0, sizeof(*diag));
	LLVMContextSetDiagnosticHandler(ctx, ol_be_diag_handler, diag);
	return ctx;
}
