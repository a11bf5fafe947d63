import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * The JDK ForkJoinPool peer of the forkjoin benchmark suite.
 *
 * <pre>
 * java -Xss16m -cp BUILD ForkJoinBench PROGRAM PARAM... [--threads T] [--k K] [--epsilon E]
 *                                      [--max-runs M] [--warmup W]
 * java -cp BUILD ForkJoinBench --self-test
 * </pre>
 *
 * Prints exactly one JSON line on stdout; everything else goes to stderr. Exit status: 0 ok,
 * 1 the answer failed verification (the JSON line is still printed), 2 bad arguments,
 * 3 any other failure (e.g. out of memory).
 */
public final class ForkJoinBench {
    static final String USAGE = "usage: ForkJoinBench PROGRAM PARAM... [--threads T] [--k K]"
            + " [--epsilon E] [--max-runs M] [--warmup W] | --self-test;"
            + " programs: fib N THRESHOLD, integrate TOLERANCE, sort COUNT, matmul N,"
            + " nqueens N, submit N";

    /** A command-line mistake: reported on one line, exit status 2. */
    static final class UsageError extends Exception {
        private static final long serialVersionUID = 1L;
        UsageError(String message) { super(message); }
    }

    @FunctionalInterface
    interface Factory {
        Workload make(String[] params) throws UsageError;
    }

    record ProgramSpec(String name, List<String> params, Factory factory) {}

    /** Parameters are all parsed and range-checked before any input is built. */
    static final Map<String, ProgramSpec> PROGRAMS = Map.of(
        "fib", new ProgramSpec("fib", List.of("N", "THRESHOLD"), p -> {
            // fib(92) is the largest that fits a long.
            int n = parseInt("N", p[0], 0, 92);
            int threshold = parseInt("THRESHOLD", p[1], 0, Integer.MAX_VALUE);
            return new Fib(n, threshold);
        }),
        "integrate", new ProgramSpec("integrate", List.of("TOLERANCE"), p -> {
            double tolerance = parseDouble("TOLERANCE", p[0]);
            if (!(tolerance > 0)) throw new UsageError("TOLERANCE must be > 0, got '" + p[0] + "'");
            return new Integrate(tolerance);
        }),
        "sort", new ProgramSpec("sort", List.of("COUNT"), p ->
            new Sort(parseInt("COUNT", p[0], 1, Integer.MAX_VALUE - 8))),
        "matmul", new ProgramSpec("matmul", List.of("N"), p ->
            // N * N must index a Java array.
            new MatMul(parseInt("N", p[0], 1, 46340))),
        "nqueens", new ProgramSpec("nqueens", List.of("N"), p ->
            new NQueens(parseInt("N", p[0], 1, NQueens.MAX_N))),
        "submit", new ProgramSpec("submit", List.of("N"), p ->
            new Submit(parseInt("N", p[0], 1, (Integer.MAX_VALUE - 8) / 3))));

    /** K-best parameters (the "Multithreaded multicore optimisation" article) and the pool size. */
    record Options(int threads, int k, double epsilon, int maxRuns, int warmup) {
        static Options defaults() {
            return new Options(Runtime.getRuntime().availableProcessors(), 5, 0.05, 50, 2);
        }
    }

    record Invocation(ProgramSpec program, String[] params, Options options) {}

    record Result(String program, int threads, double seconds, boolean converged, int runs,
                  int k, double bestSeconds, boolean verified, String answer, long steals,
                  long opsPerRun) {
        String toJson() {
            StringBuilder json = new StringBuilder(256).append('{');
            json.append("\"program\":").append(quote(program));
            json.append(",\"runtime\":\"java\"");
            json.append(",\"threads\":").append(threads);
            json.append(",\"seconds\":").append(number(seconds));
            json.append(",\"converged\":").append(converged);
            json.append(",\"runs\":").append(runs);
            json.append(",\"k\":").append(k);
            json.append(",\"best_seconds\":").append(number(bestSeconds));
            json.append(",\"verified\":").append(verified);
            json.append(",\"answer\":").append(quote(answer));
            json.append(",\"steals\":").append(steals);
            if (opsPerRun > 0) {
                json.append(",\"ops_per_ms\":").append(number(opsPerRun / (seconds * 1000)));
            }
            return json.append('}').toString();
        }
    }

    private ForkJoinBench() {}

    public static void main(String[] args) {
        int status;
        try {
            if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
                System.err.println(USAGE);
                status = 0;
            } else if (args.length >= 1 && args[0].equals("--self-test")) {
                if (args.length > 1) throw new UsageError("--self-test takes no other arguments");
                status = selfTest();
            } else {
                Invocation inv = parse(args);
                Workload workload = inv.program().factory().make(inv.params());
                Result result = measure(workload, inv.options());
                System.out.println(result.toJson());
                status = result.verified() ? 0 : 1;
            }
        } catch (UsageError e) {
            System.err.println("ForkJoinBench: " + e.getMessage());
            status = 2;
        } catch (Throwable e) {
            System.err.println("ForkJoinBench: failed: " + e);
            status = 3;
        }
        System.out.flush();
        // Also ends the pool's worker threads (they are daemons, but be explicit).
        System.exit(status);
    }

    static Invocation parse(String[] args) throws UsageError {
        if (args.length == 0) throw new UsageError("missing program; " + USAGE);
        String name = args[0];
        ProgramSpec program = PROGRAMS.get(name);
        if (program == null) {
            throw new UsageError("unknown program '" + name + "' (expected one of "
                    + String.join(", ", new java.util.TreeSet<>(PROGRAMS.keySet())) + ")");
        }
        Options defaults = Options.defaults();
        int threads = defaults.threads(), k = defaults.k(), maxRuns = defaults.maxRuns();
        int warmup = defaults.warmup();
        double epsilon = defaults.epsilon();
        List<String> params = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                params.add(arg);
                continue;
            }
            if (i + 1 >= args.length) throw new UsageError("missing value for " + arg);
            String value = args[++i];
            switch (arg) {
                case "--threads" -> threads = parseInt("--threads", value, 1, 32767);
                case "--k" -> k = parseInt("--k", value, 1, Integer.MAX_VALUE);
                case "--max-runs" -> maxRuns = parseInt("--max-runs", value, 1, Integer.MAX_VALUE);
                case "--warmup" -> warmup = parseInt("--warmup", value, 0, Integer.MAX_VALUE);
                case "--epsilon" -> {
                    epsilon = parseDouble("--epsilon", value);
                    if (epsilon < 0) throw new UsageError("--epsilon must be >= 0, got '" + value + "'");
                }
                default -> throw new UsageError("unknown option '" + arg + "'");
            }
        }
        if (maxRuns < k) {
            throw new UsageError("--max-runs (" + maxRuns + ") must be at least --k (" + k + ")");
        }
        if (params.size() != program.params().size()) {
            throw new UsageError(name + " takes " + program.params().size() + " parameter(s) "
                    + String.join(" ", program.params()) + ", got " + params.size()
                    + (params.isEmpty() ? "" : " (" + String.join(" ", params) + ")"));
        }
        return new Invocation(program, params.toArray(new String[0]),
                new Options(threads, k, epsilon, maxRuns, warmup));
    }

    static int parseInt(String what, String value, int min, int max) throws UsageError {
        long v;
        try {
            v = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageError(what + " must be an integer, got '" + value + "'");
        }
        if (v < min || v > max) {
            throw new UsageError(what + " must be in [" + min + ", " + max + "], got " + value);
        }
        return (int) v;
    }

    static double parseDouble(String what, String value) throws UsageError {
        double v;
        try {
            v = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new UsageError(what + " must be a number, got '" + value + "'");
        }
        if (!Double.isFinite(v)) throw new UsageError(what + " must be finite, got '" + value + "'");
        return v;
    }

    /**
     * Warm-up, then the K-best method: keep the K fastest runs, stop once the K-th fastest is
     * within (1 + epsilon) of the fastest (after at least K runs) or after M runs, and report
     * the mean of the K fastest. Every run, warm-up included, is verified.
     */
    static Result measure(Workload workload, Options options) {
        ForkJoinPool pool = new ForkJoinPool(options.threads());
        try {
            boolean verified = true;
            String answer = "";
            for (int i = 0; i < options.warmup(); i++) {
                workload.reset();
                workload.run(pool);
                verified &= check(workload, "warm-up run " + (i + 1));
            }

            // Stealing between measured runs is impossible (the pool is idle while we reset
            // and verify), so the difference over the whole phase is the measured runs' steals.
            long stealsBefore = pool.getStealCount();
            double[] fastest = new double[options.k()]; // ascending, first `kept` are valid
            int kept = 0;
            int runs = 0;
            boolean converged = false;
            while (runs < options.maxRuns()) {
                workload.reset();
                long start = System.nanoTime();
                workload.run(pool);
                long end = System.nanoTime();
                runs++;
                verified &= check(workload, "run " + runs);
                answer = workload.answer();
                kept = insert(fastest, kept, (end - start) / 1e9);
                if (kept == options.k() && fastest[kept - 1] <= (1 + options.epsilon()) * fastest[0]) {
                    converged = true;
                    break;
                }
            }
            // Workers publish their steal counts when they finish a top-level task, which may
            // be just after the root's join returned: let them settle first.
            pool.awaitQuiescence(5, TimeUnit.SECONDS);
            long steals = (pool.getStealCount() - stealsBefore) / runs;

            double mean = Arrays.stream(fastest, 0, kept).average().orElse(Double.NaN);
            Result result = new Result(workload.name(), options.threads(), mean, converged, runs,
                    options.k(), fastest[0], verified, answer, steals, workload.opsPerRun());
            System.err.printf("%s: %d threads, %d runs%s, mean of %d best %.6f s, best %.6f s,"
                    + " %d steals/run%s%n", workload.name(), options.threads(), runs,
                    converged ? " (converged)" : " (not converged)", kept, mean, fastest[0],
                    steals, verified ? "" : ", VERIFICATION FAILED");
            return result;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Inserts t into the ascending array of the fastest times; returns the new count. */
    private static int insert(double[] fastest, int kept, double t) {
        if (kept == fastest.length) {
            if (t >= fastest[kept - 1]) return kept;
            kept--; // the slowest of the kept ones drops out
        }
        int i = kept;
        while (i > 0 && fastest[i - 1] > t) {
            fastest[i] = fastest[i - 1];
            i--;
        }
        fastest[i] = t;
        return kept + 1;
    }

    private static boolean check(Workload workload, String which) {
        String problem = workload.verify();
        if (problem == null) return true;
        System.err.println(workload.name() + ": " + which + ": " + problem);
        return false;
    }

    /**
     * Every program at a tiny size at 2 threads, one JSON line each; exit status 0 only if
     * all verified. Sizes are chosen to still reach every parallel code path (sort and merge
     * above their sequential cutoffs, matmul with uneven splits).
     */
    static int selfTest() throws UsageError {
        String[][] cases = {
            {"fib", "24", "13"},
            {"fib", "20", "1"},
            {"integrate", "1"},
            {"sort", "50000"},
            {"matmul", "150"},
            {"nqueens", "8"},
            {"submit", "300"},
        };
        Options options = new Options(2, 2, 0.5, 4, 1);
        int failed = 0;
        for (String[] c : cases) {
            Workload workload = PROGRAMS.get(c[0]).factory().make(Arrays.copyOfRange(c, 1, c.length));
            Result result = measure(workload, options);
            System.out.println(result.toJson());
            if (!result.verified()) failed++;
        }
        System.err.println("self-test: " + (cases.length - failed) + " of " + cases.length
                + " verified");
        return failed == 0 ? 0 : 1;
    }

    private static String number(double v) {
        // JSON has no NaN or infinity.
        return Double.isFinite(v) ? Double.toString(v) : "null";
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (ch < 0x20) out.append(String.format("\\u%04x", (int) ch));
                    else out.append(ch);
                }
            }
        }
        return out.append('"').toString();
    }
}
