package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportTimeoutException;
import dev.spillway.rdma.WindowHandle;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Messages put one-sided into the ring window a buddy created ({@link BuddyKeeper}), one per free slot. Once a flush
 * towards the buddy completed a message's put, a {@code SLOT slot length} notice on {@link BuddyWire#STREAM_TAG}
 * tells the buddy it may take the slot, and the buddy gives the slot back with a credit on
 * {@link BuddyWire#CREDIT_TAG}, for which a receive stands from the notice on. Up to {@link #BUFFERS} messages are
 * put ahead of their notice. A failure of the ring's own operations breaks it for good: every later message fails
 * at once, naming the first failure. One thread uses it.
 */
final class RingOutlet implements ChunkOutlet
{
    /** Local buffers a message is written into and put from. */
    static final int BUFFERS = 2;

    private final Transport transport;
    private final WindowHandle ring;
    private final int buddy;
    private final BooleanSupplier stopped;
    private final KeeperWatch watch;
    private final ByteBuffer[] buffers = new ByteBuffer[BUFFERS];
    /** Put, not yet announced, oldest first. */
    private final ArrayDeque<Put> puts = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    /** One per slot announced and not given back yet. */
    private final ArrayDeque<PostedCredit> credits = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> creditBuffers = new ArrayDeque<>();
    private final SlotSends notices;
    private int next;
    private String broken;
    private volatile String waiting;

    private record Put(int slot, int length, CompletableFuture<Void> flushed)
    {
    }

    private record PostedCredit(ByteBuffer buffer, CompletableFuture<Message> credit)
    {
    }

    /**
     * @param ring    the buddy's ring, {@link BuddyWire#SLOTS} slots of {@link BuddyWire#SLOT_BYTES}.
     * @param stopped whether to stop waiting for a credit (the copy closed).
     * @param watch   cuts the wait for a credit short once the buddy stopped giving them.
     */
    RingOutlet(final Transport transport, final WindowHandle ring, final BooleanSupplier stopped,
        final KeeperWatch watch)
    {
        if (ring.size() < (long) BuddyWire.SLOTS * BuddyWire.SLOT_BYTES)
        {
            throw new IllegalArgumentException(ring + " is smaller than " + BuddyWire.SLOTS + " slots of " +
                BuddyWire.SLOT_BYTES + " bytes");
        }
        this.transport = transport;
        this.ring = ring;
        this.buddy = ring.owner();
        this.stopped = stopped;
        this.watch = watch;
        this.notices = new SlotSends(transport, buddy, BuddyWire.STREAM_TAG);
        for (int slot = 0; slot < BuddyWire.SLOTS; slot++)
        {
            freeSlots.add(slot);
            creditBuffers.add(BuddyWire.noticeBuffer());
        }
    }

    @Override
    public ByteBuffer free()
    {
        checkNotBroken();
        if (puts.size() == BUFFERS)
        {
            announceOldest();
        }
        final int i = next++ % BUFFERS;
        if (buffers[i] == null)
        {
            buffers[i] = ByteBuffer.allocateDirect(BuddyWire.SLOT_BYTES);
        }
        return buffers[i].clear();
    }

    @Override
    public void send(final ByteBuffer message) throws InterruptedException
    {
        final int slot = freeSlot();
        try
        {
            transport.put(ring, (long) slot * BuddyWire.SLOT_BYTES, message);
            puts.add(new Put(slot, message.remaining(), transport.flush(buddy)));
        }
        catch (final RuntimeException e)
        {
            throw breaks(e);
        }
    }

    @Override
    public void drain()
    {
        while (!puts.isEmpty())
        {
            announceOldest();
        }
    }

    @Override
    public void abandon()
    {
        while (!puts.isEmpty())
        {
            try
            {
                puts.peek().flushed().get();
            }
            catch (final ExecutionException e)
            {
                // The buddy never hears of the slot, but whether the put is still to land is unknown.
                breaks(e.getCause());
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
            freeSlots.add(puts.poll().slot());
        }
    }

    /** @return what the outlet waits for, or null. */
    String waiting()
    {
        return waiting;
    }

    private int freeSlot() throws InterruptedException
    {
        checkNotBroken();
        if (freeSlots.isEmpty())
        {
            // The buddy gives back only the slots it heard of.
            drain();
            waiting = "waiting for buddy rank " + buddy + " to give back a slot of its ring (all " + BuddyWire.SLOTS +
                " hold messages it has not taken yet)";
            try
            {
                freeSlots.add(nextCredit());
            }
            finally
            {
                waiting = null;
            }
        }
        return freeSlots.poll();
    }

    private int nextCredit() throws InterruptedException
    {
        while (true)
        {
            if (stopped.getAsBoolean())
            {
                throw new InterruptedException("the copy to buddy rank " + buddy + " closed");
            }
            final PostedCredit posted = credits.poll();
            final Message m;
            try
            {
                m = watch.await(posted.credit());
            }
            catch (final TransportTimeoutException e)
            {
                credits.add(post(posted.buffer()));
                continue;
            }
            catch (final RuntimeException e)
            {
                throw breaks(e);
            }
            final int slot = m.length() == 4 ? posted.buffer().getInt(0) : -1;
            creditBuffers.add(posted.buffer());
            if (slot < 0 || slot >= BuddyWire.SLOTS || freeSlots.contains(slot))
            {
                throw breaks(new IllegalStateException("buddy rank " + buddy + " gave back slot " + slot + " of " +
                    "its ring, which is not in use"));
            }
            return slot;
        }
    }

    /** Waits for the oldest put's flush, then tells the buddy its slot holds a message. */
    private void announceOldest()
    {
        final Put put = puts.peek();
        final int slot = put.slot();
        try
        {
            Collectives.await(put.flushed());
            notices.buffer(slot).put(BuddyWire.SLOT).putInt(slot).putInt(put.length());
            credits.add(post(creditBuffers.poll()));
            notices.send(slot);
        }
        catch (final RuntimeException e)
        {
            throw breaks(e);
        }
        puts.poll();
    }

    private PostedCredit post(final ByteBuffer buffer)
    {
        return new PostedCredit(buffer, transport.receive(buddy, BuddyWire.CREDIT_TAG, buffer.clear()));
    }

    private RuntimeException breaks(final Throwable cause)
    {
        if (broken == null)
        {
            broken = String.valueOf(cause.getMessage());
        }
        return cause instanceof RuntimeException re ? re : new IllegalStateException(cause.toString(), cause);
    }

    private void checkNotBroken()
    {
        if (broken != null)
        {
            throw new IllegalStateException("the ring to buddy rank " + buddy + " broke earlier: " + broken +
                "; no copy goes to it until the job restarts");
        }
    }
}
