package dev.spillway.internal;

/** A preallocated slot of the request ring into the IO thread. */
final class EngineEvent
{
    enum Kind
    {
        SUBMIT, DONE, GATE_OPEN, PAUSE, RESUME, CANCEL_ALL, CUT
    }

    Kind kind;
    TaskRecord task;
    Throwable error;
    CutRequest cut;

    void clear()
    {
        kind = null;
        task = null;
        error = null;
        cut = null;
    }
}
