import java.math.BigInteger;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * Lea's Integrate: adaptive quadrature of f(x) = sum_{i=1..5} (2i-1) x^(2i-1) over [-47, 48],
 * forking at every subdivision. The arithmetic is spelled out exactly as in the Rust
 * program (same operations in the same order), so both build the same task tree and compute
 * the same bits.
 */
final class Integrate implements Workload {
    static final double LOW = -47.0;
    static final double HIGH = 48.0;

    private final double tolerance;
    /** The same recursion run with plain calls; the parallel result must equal it bit for bit. */
    private final double sequential;
    private final double exact;
    private double result;

    Integrate(double tolerance) {
        this.tolerance = tolerance;
        this.exact = exactIntegral();
        AreaTask root = root(tolerance, false);
        root.compute();
        this.sequential = root.result;
    }

    @Override public String name() { return "integrate"; }

    @Override public void run(ForkJoinPool pool) {
        AreaTask root = root(tolerance, true);
        pool.invoke(root);
        result = root.result;
    }

    @Override public String verify() {
        if (Double.doubleToRawLongBits(result) != Double.doubleToRawLongBits(sequential)) {
            return "integral " + CFormat.g17(result) + " differs from the sequential run's "
                    + CFormat.g17(sequential);
        }
        double rel = Math.abs(result - exact) / Math.abs(exact);
        if (!(rel <= 1e-6)) {
            return "integral " + CFormat.g17(result) + " is off the closed form "
                    + CFormat.g17(exact) + " by relative " + rel;
        }
        return null;
    }

    @Override public String answer() { return CFormat.g17(result); }

    private static AreaTask root(double tolerance, boolean parallel) {
        double fl = f(LOW);
        double fr = f(HIGH);
        return new AreaTask(LOW, HIGH, fl, fr, (HIGH - LOW) * (fl + fr) / 2, tolerance, parallel);
    }

    /**
     * Horner's rule in x^2, exactly as the Rust program evaluates it: another evaluation
     * order rounds differently, which changes the task tree and the answer's last bits.
     */
    static double f(double x) {
        double x2 = x * x;
        return x * (1.0 + x2 * (3.0 + x2 * (5.0 + x2 * (7.0 + x2 * 9.0))));
    }

    /**
     * F(48) - F(-47) for F(x) = sum_i (2i-1)/(2i) x^(2i), summed exactly over the common
     * denominator 120 and rounded as the Rust program does.
     */
    static double exactIntegral() {
        BigInteger numerator = BigInteger.ZERO;
        for (int i = 1; i <= 5; i++) {
            BigInteger diff = BigInteger.valueOf(48).pow(2 * i).subtract(BigInteger.valueOf(47).pow(2 * i));
            numerator = numerator.add(diff.multiply(BigInteger.valueOf((2L * i - 1) * (120 / (2 * i)))));
        }
        return numerator.doubleValue() / 120.0;
    }

    /** area(l, r, fl, fr, a); {@code parallel == false} replaces fork/join by two plain calls. */
    @SuppressWarnings("serial")
    static final class AreaTask extends RecursiveAction {
        private final double l, r, fl, fr, a, tolerance;
        private final boolean parallel;
        double result;

        AreaTask(double l, double r, double fl, double fr, double a, double tolerance,
                 boolean parallel) {
            this.l = l;
            this.r = r;
            this.fl = fl;
            this.fr = fr;
            this.a = a;
            this.tolerance = tolerance;
            this.parallel = parallel;
        }

        @Override protected void compute() {
            double c = (l + r) / 2;
            double fc = f(c);
            double al = (c - l) * (fl + fc) / 2;
            double ar = (r - c) * (fc + fr) / 2;
            double alr = al + ar;
            if (Math.abs(alr - a) <= tolerance) {
                result = alr;
                return;
            }
            AreaTask left = new AreaTask(l, c, fl, fc, al, tolerance, parallel);
            AreaTask right = new AreaTask(c, r, fc, fr, ar, tolerance, parallel);
            if (parallel) {
                left.fork();
                right.compute();
                left.join();
            } else {
                left.compute();
                right.compute();
            }
            result = left.result + right.result;
        }
    }
}
