package dev.spillway.checkpoint;

/** How a checkpoint holds tasks back. */
public enum CheckpointMode
{
    /**
     * Only the capture blocks: an object is copied (or, without DRAM to copy into, written) before the first task
     * after the cut may change it; the write to the checkpoint store proceeds on the IO thread while tasks run.
     */
    SEMI_BLOCKING,
    /** No task after the cut starts until the generation is durable: the baseline semi-blocking is measured against. */
    BLOCKING
}
