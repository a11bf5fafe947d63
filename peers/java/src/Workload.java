import java.util.concurrent.ForkJoinPool;

/**
 * One prepared instance of a benchmark program: the input is built once by the constructor,
 * then {@link #reset}, {@link #run} and {@link #verify} are called once per run.
 * Only {@link #run} is timed.
 */
interface Workload {
    /** The program's name as it appears in the JSON line ("fib", "sort", ...). */
    String name();

    /** Restores the input before a run (e.g. re-copies the unsorted keys). Not timed. */
    default void reset() {}

    /** Runs the parallel computation once in {@code pool}. Timed. Keeps what verify needs. */
    void run(ForkJoinPool pool);

    /** Checks the result of the last run; returns null if correct, else what went wrong. */
    String verify();

    /** A short printable form of the last run's result. */
    String answer();

    /** Operations per run for an "ops_per_ms" field in the JSON line, or 0 for none. */
    default long opsPerRun() {
        return 0;
    }
}
