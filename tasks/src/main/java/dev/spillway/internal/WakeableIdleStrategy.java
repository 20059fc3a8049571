package dev.spillway.internal;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Fields producers read: the owner's state, alone on their cache lines (superclass fields are laid out first). */
abstract class IdleState
{
    static final int BUSY = 0;
    static final int SPINNING = 1;
    static final int SLEEPING = 2;

    volatile Thread owner;
    volatile int state;
}

/** Keeps the owner's own counters off the cache line producers read. */
abstract class IdleStatePadding extends IdleState
{
    long p01, p02, p03, p04, p05, p06, p07, p08;
    long p09, p10, p11, p12, p13, p14, p15, p16;
}

/**
 * Spin, then yield, then park until woken. Before parking the owner announces it sleeps and checks for work once
 * more; a producer makes its work visible, then {@link #wake()}s a sleeping owner. The two volatile accesses on
 * each side order so that no wake-up is lost; the park timeout is only a safety net.
 */
final class WakeableIdleStrategy extends IdleStatePadding implements IdleStrategy
{
    private static final int SPINS = 10;
    private static final int YIELDS = 100;

    private final BooleanSupplier hasWork;
    private final long maxParkNanos;
    private int spins;
    private int yields;

    WakeableIdleStrategy(final BooleanSupplier hasWork, final long maxParkNanos)
    {
        this.hasWork = hasWork;
        this.maxParkNanos = maxParkNanos;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (spins == 0)
        {
            state = SPINNING;
        }
        if (spins < SPINS)
        {
            spins++;
            Thread.onSpinWait();
            return;
        }
        if (yields < YIELDS)
        {
            yields++;
            Thread.yield();
            return;
        }
        if (owner == null)
        {
            owner = Thread.currentThread();
        }
        state = SLEEPING;
        if (!hasWork.getAsBoolean())
        {
            LockSupport.parkNanos(this, maxParkNanos);
        }
        state = SPINNING;
    }

    /** Called by the owner when it takes work, so producers stop counting on it. */
    @Override
    public void reset()
    {
        if (spins != 0)
        {
            state = BUSY;
            spins = 0;
            yields = 0;
        }
    }

    /** @return true while the owner is idle but awake, so it will see new work without a wake-up. */
    boolean spinning()
    {
        return state == SPINNING;
    }

    /** Unparks the owner if it sleeps; call after making work visible. */
    boolean wake()
    {
        if (state == SLEEPING)
        {
            LockSupport.unpark(owner);
            return true;
        }
        return false;
    }

    @Override
    public String alias()
    {
        return "wakeable";
    }
}
