import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * Cilk's cilksort: sort four quarters in parallel, merge them pairwise in parallel into the
 * scratch array, then merge the two halves back. Keys are compared as UNSIGNED 64-bit so the
 * order is that of Rust's u64.
 */
final class Sort implements Workload {
    /** Below this many elements a range is sorted sequentially (Cilk's QUICKSIZE). */
    static final int SEQ_SORT = 2048;
    /** Merges of fewer than this many elements in all run sequentially (Cilk's MERGESIZE). */
    static final int SEQ_MERGE = 2048;

    static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final long[] input;
    private final long[] keys;
    /** Allocated once: every run reuses it. */
    private final long[] scratch;
    private final Checksum inputChecksum;

    Sort(int count) {
        input = new long[count];
        long state = 42;
        for (int i = 0; i < count; i++) {
            state += GOLDEN_GAMMA;
            input[i] = mix(state);
        }
        inputChecksum = Checksum.of(input);
        keys = new long[count];
        scratch = new long[count];
    }

    /** splitmix64's output function (the generator adds GOLDEN_GAMMA to its state first). */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * An order-independent fingerprint of a multiset, as the Rust program's: the mixed sum
     * catches e.g. one key duplicated over another, which plain sums and xors can miss.
     */
    record Checksum(long count, long sum, long xor, long mixedSum) {
        static Checksum of(long[] keys) {
            long sum = 0, xor = 0, mixedSum = 0;
            for (long k : keys) {
                sum += k;
                xor ^= k;
                mixedSum += mix(k + GOLDEN_GAMMA);
            }
            return new Checksum(keys.length, sum, xor, mixedSum);
        }
    }

    @Override public String name() { return "sort"; }

    @Override public void reset() {
        System.arraycopy(input, 0, keys, 0, input.length);
    }

    @Override public void run(ForkJoinPool pool) {
        pool.invoke(new SortTask(keys, scratch, 0, keys.length));
    }

    @Override public String verify() {
        for (int i = 1; i < keys.length; i++) {
            if (Long.compareUnsigned(keys[i - 1], keys[i]) > 0) {
                return "not sorted at index " + i + ": " + Long.toUnsignedString(keys[i - 1])
                        + " > " + Long.toUnsignedString(keys[i]);
            }
        }
        Checksum found = Checksum.of(keys);
        if (!found.equals(inputChecksum)) {
            return "not a permutation of the input: checksum " + found + ", expected " + inputChecksum;
        }
        return null;
    }

    /** Smallest and largest key (unsigned decimal). */
    @Override public String answer() {
        if (keys.length == 0) return "empty";
        return Long.toUnsignedString(keys[0]) + ".." + Long.toUnsignedString(keys[keys.length - 1]);
    }

    /** Sorts a[lo, hi); tmp[lo, hi) is free to use (nothing else touches it meanwhile). */
    static void sequentialSort(long[] a, long[] tmp, int lo, int hi) {
        Arrays.sort(a, lo, hi);
        // Signed order puts the keys with the top bit set (the unsigned-largest) first:
        // rotate them behind the others, through the scratch range.
        int l = lo, h = hi;
        while (l < h) {
            int m = (l + h) >>> 1;
            if (a[m] < 0) l = m + 1; else h = m;
        }
        int firstNonNegative = l;
        int negatives = firstNonNegative - lo;
        if (negatives == 0 || firstNonNegative == hi) return;
        int nonNegatives = hi - firstNonNegative;
        System.arraycopy(a, firstNonNegative, tmp, lo, nonNegatives);
        System.arraycopy(a, lo, tmp, lo + nonNegatives, negatives);
        System.arraycopy(tmp, lo, a, lo, hi - lo);
    }

    /**
     * Merges the sorted src[lo1, hi1) and src[lo2, hi2) into dst starting at d. Both cursors
     * advance by the comparison's result rather than by a branch, which random keys would
     * mispredict half the time (the Rust program's merge does the same).
     */
    static void sequentialMerge(long[] src, int lo1, int hi1, int lo2, int hi2, long[] dst, int d) {
        while (lo1 < hi1 && lo2 < hi2) {
            long x = src[lo1], y = src[lo2];
            int takeX = Long.compareUnsigned(x, y) <= 0 ? 1 : 0;
            dst[d++] = takeX != 0 ? x : y;
            lo1 += takeX;
            lo2 += 1 - takeX;
        }
        System.arraycopy(src, lo1, dst, d, hi1 - lo1);
        d += hi1 - lo1;
        System.arraycopy(src, lo2, dst, d, hi2 - lo2);
    }

    /** First index in a[lo, hi) whose key is not below {@code key} (unsigned). */
    static int lowerBound(long[] a, int lo, int hi, long key) {
        while (lo < hi) {
            int m = (lo + hi) >>> 1;
            if (Long.compareUnsigned(a[m], key) < 0) lo = m + 1; else hi = m;
        }
        return lo;
    }

    /** Sorts a[lo, lo + n) in place, using tmp[lo, lo + n) as scratch. */
    @SuppressWarnings("serial")
    static final class SortTask extends RecursiveAction {
        private final long[] a, tmp;
        private final int lo, n;

        SortTask(long[] a, long[] tmp, int lo, int n) {
            this.a = a;
            this.tmp = tmp;
            this.lo = lo;
            this.n = n;
        }

        @Override protected void compute() {
            if (n < SEQ_SORT) {
                sequentialSort(a, tmp, lo, lo + n);
                return;
            }
            int q = n / 4;
            int qa = lo, qb = lo + q, qc = lo + 2 * q, qd = lo + 3 * q, end = lo + n;
            SortTask sa = new SortTask(a, tmp, qa, q);
            SortTask sb = new SortTask(a, tmp, qb, q);
            SortTask sc = new SortTask(a, tmp, qc, q);
            SortTask sd = new SortTask(a, tmp, qd, end - qd);
            // Fork three, work on the fourth, join in reverse so each join finds its task on
            // top of our own deque unless it was stolen.
            sa.fork();
            sb.fork();
            sc.fork();
            sd.compute();
            sc.join();
            sb.join();
            sa.join();

            MergeTask ab = new MergeTask(a, qa, qb, qb, qc, tmp, qa);
            MergeTask cd = new MergeTask(a, qc, qd, qd, end, tmp, qc);
            ab.fork();
            cd.compute();
            ab.join();

            new MergeTask(tmp, qa, qc, qc, end, a, qa).compute();
        }
    }

    /** Cilk's cilkmerge: split the larger run at its middle, binary-search the other. */
    @SuppressWarnings("serial")
    static final class MergeTask extends RecursiveAction {
        private final long[] src, dst;
        private final int lo1, hi1, lo2, hi2, d;

        MergeTask(long[] src, int lo1, int hi1, int lo2, int hi2, long[] dst, int d) {
            this.src = src;
            this.lo1 = lo1;
            this.hi1 = hi1;
            this.lo2 = lo2;
            this.hi2 = hi2;
            this.dst = dst;
            this.d = d;
        }

        @Override protected void compute() {
            int lo1 = this.lo1, hi1 = this.hi1, lo2 = this.lo2, hi2 = this.hi2;
            if (hi1 - lo1 < hi2 - lo2) {
                // Keep the larger run first so its middle element always exists.
                int t = lo1; lo1 = lo2; lo2 = t;
                t = hi1; hi1 = hi2; hi2 = t;
            }
            int n1 = hi1 - lo1, n2 = hi2 - lo2;
            if (n1 + n2 < SEQ_MERGE || n2 == 0) {
                sequentialMerge(src, lo1, hi1, lo2, hi2, dst, d);
                return;
            }
            int m1 = (lo1 + hi1) >>> 1;
            long pivot = src[m1];
            int m2 = lowerBound(src, lo2, hi2, pivot);
            int p = d + (m1 - lo1) + (m2 - lo2);
            dst[p] = pivot;
            MergeTask left = new MergeTask(src, lo1, m1, lo2, m2, dst, d);
            MergeTask right = new MergeTask(src, m1 + 1, hi1, m2, hi2, dst, p + 1);
            left.fork();
            right.compute();
            left.join();
        }
    }
}
