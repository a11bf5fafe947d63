import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * fib(n) with the threshold of Lea's paper: at or below it (n <= threshold, Lea's test and the
 * Rust program's) the plain sequential recursion runs.
 * A RecursiveAction with a primitive result field (as Lea's FJTask Fib) rather than a
 * RecursiveTask&lt;Long&gt;, so that we measure the scheduler and not Long boxing.
 */
final class Fib implements Workload {
    private final int n;
    private final int threshold;
    private final long expected;
    private long result;

    Fib(int n, int threshold) {
        this.n = n;
        this.threshold = threshold;
        this.expected = iterative(n);
    }

    @Override public String name() { return "fib"; }

    @Override public void run(ForkJoinPool pool) {
        FibTask root = new FibTask(n, threshold);
        pool.invoke(root);
        result = root.result;
    }

    @Override public String verify() {
        return result == expected ? null : "fib(" + n + ") = " + result + ", expected " + expected;
    }

    @Override public String answer() { return Long.toString(result); }

    static long sequential(int n) {
        return n < 2 ? n : sequential(n - 1) + sequential(n - 2);
    }

    /** The exact value, by a method that shares nothing with the code under test. */
    static long iterative(int n) {
        long a = 0, b = 1;
        for (int i = 0; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return a;
    }

    @SuppressWarnings("serial")
    static final class FibTask extends RecursiveAction {
        private final int n;
        private final int threshold;
        long result;

        FibTask(int n, int threshold) {
            this.n = n;
            this.threshold = threshold;
        }

        @Override protected void compute() {
            // n < 2 is the recursion's own base case, so thresholds 0 and 1 fork at every call.
            if (n <= threshold || n < 2) {
                result = sequential(n);
                return;
            }
            FibTask left = new FibTask(n - 1, threshold);
            FibTask right = new FibTask(n - 2, threshold);
            left.fork();
            right.compute();
            left.join();
            result = left.result + right.result;
        }
    }
}
