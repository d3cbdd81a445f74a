/* A reduction: its kernel calls the device runtime, which the link takes
 * from -lomptarget.devicertl (bitcode) when the unit is compiled without
 * it.  SCALE is the edit a relink sees. */
double unit_sum(double *a, int n)
{
  double sum = 0;
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: a[0:n])
  for (int i = 0; i < n; i++)
    sum += a[i] * SCALE;
  return sum;
}
