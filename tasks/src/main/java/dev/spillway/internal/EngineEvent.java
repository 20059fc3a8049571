package dev.spillway.internal;

import java.util.concurrent.CompletableFuture;

/** A preallocated slot of the request ring into the IO thread. */
final class EngineEvent
{
    enum Kind
    {
        SUBMIT, DONE, GATE_OPEN, PAUSE, RESUME, CANCEL_ALL, CUT, HOLD_FOR_CUT, RELEASE_HOLD
    }

    Kind kind;
    TaskRecord task;
    Throwable error;
    CutRequest cut;
    /** {@code HOLD_FOR_CUT}: completed with the admission front once admission is held. */
    CompletableFuture<Long> front;

    void clear()
    {
        kind = null;
        task = null;
        error = null;
        cut = null;
        front = null;
    }
}
