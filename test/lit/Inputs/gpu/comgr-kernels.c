/* Lists the kernels of an AMDGPU code object as libamd-comgr (the reader the HIP runtime uses) sees them. */
#include <amd_comgr.h>
#include <stdio.h>
#include <stdlib.h>

static int check(amd_comgr_status_t s, const char *what)
{
	if (s != AMD_COMGR_STATUS_SUCCESS) {
		fprintf(stderr, "comgr: %s failed (%d)\n", what, (int)s);
		exit(1);
	}
	return 0;
}

static void print_string(amd_comgr_metadata_node_t node, const char *prefix)
{
	size_t n = 0;
	char *s;

	check(amd_comgr_get_metadata_string(node, &n, NULL), "string size");
	s = malloc(n + 1);
	check(amd_comgr_get_metadata_string(node, &n, s), "string");
	s[n] = 0;
	printf("%s%s", prefix, s);
	free(s);
}

int main(int argc, char **argv)
{
	amd_comgr_data_t data;
	amd_comgr_metadata_node_t root, kernels;
	size_t size, count;
	char *bytes;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	rewind(f);
	bytes = malloc(size);
	if (fread(bytes, 1, size, f) != size)
		return 2;
	fclose(f);
	check(amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &data), "create_data");
	check(amd_comgr_set_data(data, size, bytes), "set_data");
	check(amd_comgr_get_data_metadata(data, &root), "get_data_metadata");
	check(amd_comgr_metadata_lookup(root, "amdhsa.kernels", &kernels), "lookup amdhsa.kernels");
	check(amd_comgr_get_metadata_list_size(kernels, &count), "list size");
	printf("kernels: %zu\n", count);
	for (size_t i = 0; i < count; i++) {
		amd_comgr_metadata_node_t k, name, sym, v;

		check(amd_comgr_index_list_metadata(kernels, i, &k), "index");
		check(amd_comgr_metadata_lookup(k, ".name", &name), "lookup .name");
		check(amd_comgr_metadata_lookup(k, ".symbol", &sym), "lookup .symbol");
		print_string(name, "kernel ");
		print_string(sym, " ");
		if (amd_comgr_metadata_lookup(k, ".vgpr_count", &v) == AMD_COMGR_STATUS_SUCCESS) {
			print_string(v, " vgprs ");
			amd_comgr_destroy_metadata(v);
		}
		printf("\n");
		amd_comgr_destroy_metadata(name);
		amd_comgr_destroy_metadata(sym);
		amd_comgr_destroy_metadata(k);
	}
	amd_comgr_destroy_metadata(kernels);
	amd_comgr_destroy_metadata(root);
	amd_comgr_release_data(data);
	free(bytes);
	return 0;
}
