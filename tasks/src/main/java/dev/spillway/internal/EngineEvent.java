package dev.spillway.internal;

/** A preallocated slot of the request ring into the IO thread. */
final class EngineEvent
{
    enum Kind
    {
        SUBMIT, DONE, GATE_OPEN, PAUSE, RESUME, CANCEL_ALL
    }

    Kind kind;
    TaskRecord task;
    Throwable error;

    void clear()
    {
        kind = null;
        task = null;
        error = null;
    }
}
