/* A plain host unit, also compiled to bitcode, so the host link is a real
 * LTO link with more than one module. */
int host_offset(void)
{
	return 1000;
}
