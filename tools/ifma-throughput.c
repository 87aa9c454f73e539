/* IFMA throughput of this machine (issue 28, docs/BENCHMARKS.md "Multi-buffer P-256
 * verification"): how many 512-bit vpmadd52luq instructions one core retires per
 * nanosecond and per tick of the time-stamp counter (the nominal clock), so the floor
 * that the P-256 kernel's count of 52-bit multiplies implies (docs/design/p256-ifma.md)
 * can be stated in the same units as `hopsig bench bgpsec`'s cycles.
 *
 * Sixteen independent accumulators, kept in registers (an empty asm with a "+v"
 * operand stops the compiler from merging or spilling them): enough to cover the
 * instruction's latency, so the loop is bound by throughput alone.
 *
 *   cc -O2 -mavx512f -mavx512ifma -o ifma-throughput tools/ifma-throughput.c
 *   ./ifma-throughput            # best of 5 runs of 8e8 instructions
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#define CHAINS 16
#define STEP(i) c##i = _mm512_madd52lo_epu64(c##i, a, b); __asm__ volatile("" : "+v"(c##i));

int main(void) {
    const long rounds = 50000000;
    double best_ns = 1e9, best_ticks = 1e9;
    long long sink = 0;
    for (int run = 0; run < 5; run++) {
        __m512i a = _mm512_set1_epi64(0x123456789abLL + run), b = _mm512_set1_epi64(0xfedcba987LL);
        __m512i c0 = a, c1 = b, c2 = a, c3 = b, c4 = a, c5 = b, c6 = a, c7 = b;
        __m512i c8 = a, c9 = b, c10 = a, c11 = b, c12 = a, c13 = b, c14 = a, c15 = b;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        unsigned long long r0 = __rdtsc();
        for (long n = 0; n < rounds; n++) {
            STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
            STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
        }
        unsigned long long r1 = __rdtsc();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (rounds * (double)CHAINS);
        double ticks = (r1 - r0) / (rounds * (double)CHAINS);
        if (ns < best_ns) best_ns = ns;
        if (ticks < best_ticks) best_ticks = ticks;
        __m512i s = _mm512_add_epi64(_mm512_add_epi64(c0, c8), _mm512_add_epi64(c7, c15));
        sink += _mm512_reduce_add_epi64(s) + _mm512_reduce_add_epi64(_mm512_add_epi64(c1, c2))
              + _mm512_reduce_add_epi64(_mm512_add_epi64(c3, c4)) + _mm512_reduce_add_epi64(_mm512_add_epi64(c5, c6))
              + _mm512_reduce_add_epi64(_mm512_add_epi64(c9, c10)) + _mm512_reduce_add_epi64(_mm512_add_epi64(c11, c12))
              + _mm512_reduce_add_epi64(_mm512_add_epi64(c13, c14));
    }
    printf("vpmadd52luq zmm: %.3f ns each, %.3f per ns; %.3f TSC ticks each, %.3f per tick (checksum %lld)\n",
           best_ns, 1.0 / best_ns, best_ticks, 1.0 / best_ticks, sink);
    return 0;
}
