package dev.spillway;

/**
 * What a task program runs on: one runtime ({@link Spillway}), or one rank of a job whose ranks all run the same
 * program ({@code dev.spillway.ranks.DistributedSpillway}). A program written against this interface runs on either.
 */
public interface TaskRuntime extends AutoCloseable
{
    /** @return this process's rank: 0 on one rank. */
    int rank();

    /** @return the number of ranks: 1 for {@link Spillway}. */
    int ranks();

    /**
     * Declares a data object (on every rank).
     *
     * @param tag   a stable name, unique within the job.
     * @param size  bytes.
     * @param owner the rank that owns it, in {@code 0 .. ranks() - 1}.
     */
    Data data(String tag, int size, int owner);

    /** Declares a data object that stays in DRAM on its owner once written (see {@link Spillway#pinnedData}). */
    Data pinnedData(String tag, int size, int owner);

    /** Starts declaring a task; on several ranks every rank submits it and one runs it. */
    TaskBuilder task(String name);

    /**
     * Waits for every task this rank runs, failing as {@link Spillway#awaitAll()} does; on several ranks it then waits
     * until every rank got here.
     */
    void awaitAll();

    /** @return the runtime that runs this rank's tasks: its counters, settings and checkpoints. */
    Spillway local();

    /** Closes this rank's runtime after its tasks (see {@link Spillway#close()}). */
    @Override
    void close();
}
