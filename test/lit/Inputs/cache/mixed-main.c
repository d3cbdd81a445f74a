#include <stdio.h>
double unit_sum(double *a, int n);
int main(void)
{
  double a[256];
  for (int i = 0; i < 256; i++)
    a[i] = i;
  printf("%g\n", unit_sum(a, 256));
  return 0;
}
