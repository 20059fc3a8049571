package dev.spillway;

/** What {@link Spillway#close()} does with tasks that have not finished. */
public enum CloseMode
{
    /** Wait for every submitted task to finish, then stop. */
    DRAIN,
    /** Let running tasks finish; fail every task not yet started with a cancellation, then stop. */
    CANCEL
}
