package dev.spillway.internal;

import java.util.concurrent.CompletionException;

/** Failures of asynchronous task work, as the task should report them. */
final class Completions
{
    private Completions()
    {
    }

    /** @return the failure a future's callback saw, without the {@link CompletionException} wrapper; or null. */
    static Throwable cause(final Throwable failure)
    {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
