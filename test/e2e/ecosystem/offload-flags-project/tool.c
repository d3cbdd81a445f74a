/* A tool of the same project: no target region, linked with the offloading
 * flags all the same. */
int main(void)
{
	__builtin_printf("tool: ran\n");
	return 0;
}
