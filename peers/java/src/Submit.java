import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;

/**
 * The Java 8 fork/join article's benchmark: the main thread (not a worker) submits N groups
 * of Sin, Cos and Tan tasks, then joins them all. It measures the external-submission path
 * rather than fork/join inside the pool.
 */
final class Submit implements Workload {
    private final int groups;
    private final double direct;
    /** Fresh tasks for every run (a completed ForkJoinTask cannot be submitted again). */
    private RecursiveTask<?>[] tasks;
    private final double[] values;
    private double result;

    Submit(int groups) {
        this.groups = groups;
        this.values = new double[3 * groups];
        double sum = 0.0;
        for (int g = 0; g < groups; g++) {
            double x = g * 0.001;
            sum += Math.sin(x);
            sum += Math.cos(x);
            sum += Math.sin(x) / Math.cos(x);
        }
        direct = sum;
    }

    @Override public String name() { return "submit"; }

    /** Task creation is set-up, as in the article, where the task list is built once. */
    @Override public void reset() {
        tasks = new RecursiveTask<?>[3 * groups];
        for (int g = 0; g < groups; g++) {
            double x = g * 0.001;
            tasks[3 * g] = new Sin(x);
            tasks[3 * g + 1] = new Cos(x);
            tasks[3 * g + 2] = new Tan(x);
        }
    }

    @Override public void run(ForkJoinPool pool) {
        for (RecursiveTask<?> task : tasks) {
            pool.submit(task);
        }
        // Join newest first, as the article does: the last submissions may still sit on top
        // of the submission queue, where the joining thread can take them back and run them.
        for (int i = tasks.length - 1; i >= 0; i--) {
            values[i] = (Double) tasks[i].join();
        }
        double sum = 0.0;
        for (double v : values) sum += v;
        result = sum;
    }

    @Override public String verify() {
        double rel = Math.abs(result - direct) / Math.max(Math.abs(direct), Double.MIN_NORMAL);
        return rel <= 1e-12 ? null
                : "sum " + CFormat.g17(result) + ", computed directly " + CFormat.g17(direct);
    }

    @Override public String answer() { return CFormat.g17(result); }

    @Override public long opsPerRun() { return 3L * groups; }

    @SuppressWarnings("serial")
    static final class Sin extends RecursiveTask<Double> {
        private final double x;
        Sin(double x) { this.x = x; }
        @Override protected Double compute() { return Math.sin(x); }
    }

    @SuppressWarnings("serial")
    static final class Cos extends RecursiveTask<Double> {
        private final double x;
        Cos(double x) { this.x = x; }
        @Override protected Double compute() { return Math.cos(x); }
    }

    /** Forks both halves, as the article's Tan does, so each Tan adds two pool tasks. */
    @SuppressWarnings("serial")
    static final class Tan extends RecursiveTask<Double> {
        private final double x;
        Tan(double x) { this.x = x; }
        @Override protected Double compute() {
            Sin sin = new Sin(x);
            Cos cos = new Cos(x);
            sin.fork();
            cos.fork();
            double c = cos.join();
            double s = sin.join();
            return s / c;
        }
    }
}
