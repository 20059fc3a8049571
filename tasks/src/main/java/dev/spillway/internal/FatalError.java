package dev.spillway.internal;

import dev.spillway.SpillwayException;

import static java.lang.System.Logger.Level.ERROR;

/**
 * The internal error that stopped a runtime, if any. The first one is kept and logged; from then on every call into
 * the runtime fails fast with it, and the agent threads stop.
 */
final class FatalError
{
    private static final System.Logger LOG = System.getLogger(FatalError.class.getName());

    private volatile Throwable fatal;

    /** An agent thread threw: the runtime cannot continue. */
    void agentFailed(final Throwable e)
    {
        if (fatal != null)
        {
            return;
        }
        fatal = e;
        LOG.log(ERROR, "spillway: internal error, the runtime cannot continue: " + e, e);
    }

    /** Poisoning found a released buffer in use: {@code what} says whose. */
    void bufferMisused(final String what)
    {
        if (fatal == null)
        {
            fatal = new IllegalStateException(what);
            LOG.log(ERROR, "spillway: " + what);
        }
    }

    /** @return the internal error that stopped the runtime, or {@code null}. */
    Throwable get()
    {
        return fatal;
    }

    /** @throws SpillwayException if the runtime stopped on an internal error. */
    void check()
    {
        final Throwable f = fatal;
        if (f != null)
        {
            throw new SpillwayException("the runtime stopped and accepts no more calls: " + f, f);
        }
    }
}
