package dev.spillway.resilience.snapshot;

/** What an application operation towards a peer's window is, as far as a wave cares. */
public enum Operation
{
    /** A put or an accumulate: one data leg, complete once issued. */
    WRITE,
    /** A get (or an atomic): a request and a response, outstanding until the response's last segment lands. */
    READ
}
