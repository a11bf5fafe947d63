import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * N-queens solution count by bitmask backtracking. The first rows fork one task per free
 * column; deeper rows run sequentially, where tasks would be too small to pay off.
 */
final class NQueens implements Workload {
    /**
     * Rows 0 .. PARALLEL_ROWS-1 fork their children; 4 as in the Rust program, so both fork
     * down to the same subtrees (tens of microseconds of work each at n = 14).
     */
    static final int PARALLEL_ROWS = 4;
    /** Known solution counts (OEIS A000170) for n = 1..16. */
    static final long[] SOLUTIONS = {
        1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
    };
    static final int MAX_N = SOLUTIONS.length;

    private final int n;
    private long result;

    NQueens(int n) {
        this.n = n;
    }

    @Override public String name() { return "nqueens"; }

    @Override public void run(ForkJoinPool pool) {
        QueensTask root = new QueensTask((1 << n) - 1, 0, 0, 0, 0);
        pool.invoke(root);
        result = root.result;
    }

    @Override public String verify() {
        long expected = SOLUTIONS[n - 1];
        return result == expected ? null
                : n + "-queens: " + result + " solutions, expected " + expected;
    }

    @Override public String answer() { return Long.toString(result); }

    /**
     * Solutions below a partial placement: cols = occupied columns, d1/d2 = squares of the
     * current row attacked along the two diagonals.
     */
    static long sequential(int all, int cols, int d1, int d2) {
        if (cols == all) return 1;
        long count = 0;
        int free = all & ~(cols | d1 | d2);
        while (free != 0) {
            int bit = free & -free;
            free ^= bit;
            count += sequential(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >>> 1);
        }
        return count;
    }

    @SuppressWarnings("serial")
    static final class QueensTask extends RecursiveAction {
        private final int all, row, cols, d1, d2;
        long result;

        QueensTask(int all, int row, int cols, int d1, int d2) {
            this.all = all;
            this.row = row;
            this.cols = cols;
            this.d1 = d1;
            this.d2 = d2;
        }

        @Override protected void compute() {
            if (row >= PARALLEL_ROWS || cols == all) {
                result = sequential(all, cols, d1, d2);
                return;
            }
            int free = all & ~(cols | d1 | d2);
            QueensTask[] children = new QueensTask[Integer.bitCount(free)];
            for (int i = 0; i < children.length; i++) {
                int bit = free & -free;
                free ^= bit;
                children[i] = new QueensTask(all, row + 1, cols | bit, (d1 | bit) << 1,
                                             (d2 | bit) >>> 1);
            }
            if (children.length == 0) return;
            // Fork all but the last, run the last here, join newest first (LIFO).
            int last = children.length - 1;
            for (int i = 0; i < last; i++) children[i].fork();
            children[last].compute();
            long count = children[last].result;
            for (int i = last - 1; i >= 0; i--) {
                children[i].join();
                count += children[i].result;
            }
            result = count;
        }
    }
}
