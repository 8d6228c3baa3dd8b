/* The runtime's own memory functions (libcollector/interpose/own_calls.c),
 * linked into this program so that its calls reach them: every length up
 * to past the string-instruction threshold, every overlap in both
 * directions, against byte loops written out here.
 * (Built with -fno-builtin -fno-tree-loop-distribute-patterns: the
 * reference loops must stay loops, and the calls must be calls.) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SIZE 1400
static unsigned char got[SIZE], want[SIZE];
static int failures;

static void fill(uint32_t seed)
{
  for (int i = 0; i < SIZE; i++) {
    seed = seed * 1103515245u + 12345u;
    got[i] = want[i] = (unsigned char)(seed >> 16);
  }
}

static void reference_move(unsigned char *d, const unsigned char *s, size_t n)
{
  unsigned char tmp[SIZE];
  for (size_t i = 0; i < n; i++)
    tmp[i] = s[i];
  for (size_t i = 0; i < n; i++)
    d[i] = tmp[i];
}

static void same(const char *what, size_t n, int shift)
{
  for (int i = 0; i < SIZE; i++)
    if (got[i] != want[i]) {
      if (failures++ < 10)
        printf("FAILED: %s of %zu bytes, shift %d: byte %d is %u, not %u\n", what, n, shift, i, got[i], want[i]);
      return;
    }
}

int main(void)
{
  for (size_t n = 0; n <= 600; n += n < 40 ? 1 : 7)
    for (int shift = -40; shift <= 40; shift++) {
      size_t from = 300, to = (size_t)(300 + shift);
      fill((uint32_t)(n * 131 + (size_t)shift));
      memmove(got + to, got + from, n);
      reference_move(want + to, want + from, n);
      same("memmove", n, shift);
      if (shift <= -(int)n || shift >= (int)n) { /* apart: memcpy too */
        fill((uint32_t)(n * 7 + (size_t)shift));
        memcpy(got + to, got + from, n);
        reference_move(want + to, want + from, n);
        same("memcpy", n, shift);
      }
    }
  for (size_t n = 0; n <= 600; n += 13) {
    fill((uint32_t)n);
    memset(got + 5, 0xA5, n);
    for (size_t i = 0; i < n; i++)
      want[5 + i] = 0xA5;
    same("memset", n, 0);
  }
  unsigned char a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 9, 0};
  if (memcmp(a, b, 4) >= 0 || memcmp(b, a, 4) <= 0 || memcmp(a, b, 2) != 0) {
    printf("FAILED: memcmp's order\n");
    failures++;
  }
  printf(failures ? "%d failures\n" : "all checks passed\n", failures);
  return failures != 0;
}
