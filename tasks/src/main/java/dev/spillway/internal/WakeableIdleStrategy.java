package dev.spillway.internal;

import org.agrona.concurrent.IdleStrategy;

import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park until woken. Before parking the owner announces it sleeps and checks for work once
 * more; a producer makes its work visible, then {@link #wake()}s a sleeping owner. The two volatile accesses on
 * each side order so that no wake-up is lost; the park timeout is only a safety net.
 */
final class WakeableIdleStrategy implements IdleStrategy
{
    private static final int SPINS = 100;
    private static final int YIELDS = 10;

    private final BooleanSupplier hasWork;
    private final long maxParkNanos;
    private volatile Thread owner;
    private volatile boolean sleeping;
    private volatile boolean spinning;
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
            spinning = true;
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
        sleeping = true;
        spinning = false;
        if (!hasWork.getAsBoolean())
        {
            LockSupport.parkNanos(this, maxParkNanos);
        }
        sleeping = false;
    }

    @Override
    public void reset()
    {
        spinning = false;
        spins = 0;
        yields = 0;
    }

    /** @return true while the owner is idle but awake, so it will see new work without a wake-up. */
    boolean spinning()
    {
        return spinning;
    }

    /** Unparks the owner if it sleeps; call after making work visible. */
    boolean wake()
    {
        if (sleeping)
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
