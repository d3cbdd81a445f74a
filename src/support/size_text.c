/* size_text: see include/offload/size_text.h. */
#include "offload/size_text.h"

#include <errno.h>
#include <stdlib.h>

int ol_parse_size(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t unit = 1;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	switch (*end) {
	case 'k': case 'K': unit = 1ull << 10; end++; break;
	case 'm': case 'M': unit = 1ull << 20; end++; break;
	case 'g': case 'G': unit = 1ull << 30; end++; break;
	case 't': case 'T': unit = 1ull << 40; end++; break;
	default: break;
	}
	if (*end == 'i' && unit > 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > UINT64_MAX / unit)
		return -1;
	*out = v * unit;
	return 0;
}
