/* The host side of a SYCL translation unit; its device code is embedded with
 * -Xclang -fembed-offload-object=<package>.  Compiled with -DHOST_FUNCTION=. */
int HOST_FUNCTION(void)
{
	return 0;
}
