import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * C = A * B for n x n doubles, flat row-major arrays, recursive blocking: split the largest
 * of the three dimensions in half (ties: i before j before k). Splits of i or j write
 * disjoint blocks of C and are forked; splits of k write the same block and run one after
 * the other. Every entry of A and B is a small integer, so all products and sums are exact
 * and any summation order gives the same bits.
 */
final class MatMul implements Workload {
    /** Leaves are at most this large in every dimension. */
    static final int LEAF = 64;

    private final int n;
    private final double[] a, b, c;
    /** The same recursion with plain calls, computed once. */
    private final double[] reference;

    MatMul(int n) {
        this.n = n;
        a = new double[n * n];
        b = new double[n * n];
        c = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i * n + j] = ((i * 7 + j * 3) % 17) - 8.0;
                b[i * n + j] = ((i * 5 + j * 11) % 13) - 6.0;
            }
        }
        reference = new double[n * n];
        new MulTask(a, b, reference, n, 0, n, 0, n, 0, n, false).compute();
    }

    @Override public String name() { return "matmul"; }

    @Override public void reset() {
        Arrays.fill(c, 0.0);
    }

    @Override public void run(ForkJoinPool pool) {
        pool.invoke(new MulTask(a, b, c, n, 0, n, 0, n, 0, n, true));
    }

    @Override public String verify() {
        for (int i = 0; i < n * n; i++) {
            if (Double.doubleToRawLongBits(c[i]) != Double.doubleToRawLongBits(reference[i])) {
                return "C[" + (i / n) + "][" + (i % n) + "] = " + c[i]
                        + ", the sequential run gave " + reference[i];
            }
        }
        // The reference itself comes from the code under test: spot-check it independently.
        for (int corner : new int[] {0, n - 1}) {
            double dot = 0.0;
            for (int k = 0; k < n; k++) {
                dot += a[corner * n + k] * b[k * n + corner];
            }
            if (c[corner * n + corner] != dot) {
                return "C[" + corner + "][" + corner + "] = " + c[corner * n + corner]
                        + ", the dot product gives " + dot;
            }
        }
        return null;
    }

    /** The sum of all entries of C, in row-major order. */
    @Override public String answer() {
        double sum = 0.0;
        for (double v : c) sum += v;
        return CFormat.g17(sum);
    }

    /** C[i0,i1) x [j0,j1) += A[i0,i1) x [k0,k1) * B[k0,k1) x [j0,j1). */
    @SuppressWarnings("serial")
    static final class MulTask extends RecursiveAction {
        private final double[] a, b, c;
        private final int n, i0, i1, j0, j1, k0, k1;
        /** false replaces fork/join by two plain calls (the sequential reference). */
        private final boolean parallel;

        MulTask(double[] a, double[] b, double[] c, int n,
                int i0, int i1, int j0, int j1, int k0, int k1, boolean parallel) {
            this.a = a;
            this.b = b;
            this.c = c;
            this.n = n;
            this.i0 = i0;
            this.i1 = i1;
            this.j0 = j0;
            this.j1 = j1;
            this.k0 = k0;
            this.k1 = k1;
            this.parallel = parallel;
        }

        @Override protected void compute() {
            int di = i1 - i0, dj = j1 - j0, dk = k1 - k0;
            if (di <= LEAF && dj <= LEAF && dk <= LEAF) {
                leaf();
                return;
            }
            if (di >= dj && di >= dk) {
                int m = i0 + di / 2;
                both(new MulTask(a, b, c, n, i0, m, j0, j1, k0, k1, parallel),
                     new MulTask(a, b, c, n, m, i1, j0, j1, k0, k1, parallel));
            } else if (dj >= dk) {
                int m = j0 + dj / 2;
                both(new MulTask(a, b, c, n, i0, i1, j0, m, k0, k1, parallel),
                     new MulTask(a, b, c, n, i0, i1, m, j1, k0, k1, parallel));
            } else {
                // Both halves of k accumulate into the same block of C: never in parallel.
                int m = k0 + dk / 2;
                new MulTask(a, b, c, n, i0, i1, j0, j1, k0, m, parallel).compute();
                new MulTask(a, b, c, n, i0, i1, j0, j1, m, k1, parallel).compute();
            }
        }

        private void both(MulTask left, MulTask right) {
            if (parallel) {
                left.fork();
                right.compute();
                left.join();
            } else {
                left.compute();
                right.compute();
            }
        }

        /** i-k-j order: the inner loop streams along rows of B and C. */
        private void leaf() {
            for (int i = i0; i < i1; i++) {
                int row = i * n;
                for (int k = k0; k < k1; k++) {
                    double aik = a[row + k];
                    int brow = k * n;
                    for (int j = j0; j < j1; j++) {
                        c[row + j] += aik * b[brow + j];
                    }
                }
            }
        }
    }
}
