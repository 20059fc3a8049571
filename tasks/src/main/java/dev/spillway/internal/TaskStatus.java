package dev.spillway.internal;

/** Life of a task; the IO thread moves it, except READY to RUNNING, which a worker claims. */
enum TaskStatus
{
    /** Submitted, some predecessor unfinished. */
    BLOCKED,
    /** Dependencies met, waiting for an outside event (a peer's notice) before admission. */
    GATED,
    /** Dependencies met, queued for admission by the IO policy. */
    PENDING,
    /** Admitted: DRAM reserved, transfers in flight. */
    FETCHING,
    /** All data resident, in a ready queue. */
    READY,
    /** A worker runs the body. */
    RUNNING,
    /** Ran to completion. */
    DONE,
    /** Threw, or lost an input. */
    FAILED,
    /** Cancelled by close. */
    CANCELLED;

    boolean terminal()
    {
        return this == DONE || this == FAILED || this == CANCELLED;
    }
}
