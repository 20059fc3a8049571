package dev.spillway;

/** What {@link Spillway#close()} does with tasks that have not finished. */
public enum CloseMode
{
    /** Wait for every submitted task to finish, then stop. */
    DRAIN,
    /** Fail every task not yet running with a cancellation at once; let running tasks finish; then stop. */
    CANCEL
}
