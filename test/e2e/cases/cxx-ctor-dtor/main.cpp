// A C++ declare-target object with a constructor and a destructor.  The
// device copy is built by running the constructor on the device when the
// image is loaded, so the values the target region reads exist only if the
// device image's initializers were linked and ran.
#include <omp.h>
#include <cstdio>

#pragma omp declare target
struct Squares {
	int values[8];
	int generation;

	Squares() : generation(1)
	{
		for (int i = 0; i < 8; i++)
			values[i] = i * i;
	}
	~Squares()
	{
		generation = -1;
	}
	int total() const
	{
		int sum = 0;
		for (int i = 0; i < 8; i++)
			sum += values[i] * generation;
		return sum;
	}
};

Squares squares;
#pragma omp end declare target

// A second object whose destructor must be registered for the host copy.
static int host_destructions = 0;
struct HostOnly {
	~HostOnly() { host_destructions++; }
};

int main()
{
	int on_host = -1, total = 0;
	{
		HostOnly scoped;
		(void)scoped;
	}

#pragma omp target map(tofrom: on_host, total)
	{
		on_host = omp_is_initial_device();
		total = squares.total();
	}
	std::printf("initial_device=%d device total=%d host total=%d host destructions=%d\n", on_host,
		    total, squares.total(), host_destructions);
	return on_host == 0 && total == 140 ? 0 : 1;
}
