package dev.spillway.rdma;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * One transport's {@link PeerListener}s and the thread that tells them. An event goes to the listeners added
 * before it was published, in publishing order; a listener that throws is logged and the others are still told.
 */
final class PeerEvents
{
    private static final System.Logger LOG = System.getLogger(PeerEvents.class.getName());

    private final List<PeerListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService thread;

    /** @param thread runs the listeners, one event after the other; shared, for example, by a fabric's ranks. */
    PeerEvents(final ExecutorService thread)
    {
        this.thread = thread;
    }

    /** @return a single daemon thread named {@code name} to tell listeners on. */
    static ExecutorService thread(final String name)
    {
        return Executors.newSingleThreadExecutor(task ->
        {
            final Thread t = new Thread(task, name);
            t.setDaemon(true);
            return t;
        });
    }

    void add(final PeerListener listener)
    {
        listeners.add(listener);
    }

    void remove(final PeerListener listener)
    {
        listeners.remove(listener);
    }

    /** Tells the current listeners of {@code event}, later, on the event thread; nothing once it is shut down. */
    void publish(final PeerEvent event)
    {
        final PeerListener[] to = listeners.toArray(new PeerListener[0]);
        if (to.length == 0)
        {
            return;
        }
        try
        {
            thread.execute(() ->
            {
                for (final PeerListener listener : to)
                {
                    tell(listener, event);
                }
            });
        }
        catch (final RejectedExecutionException ignored)
        {
            // The transport is closed: no more events.
        }
    }

    private static void tell(final PeerListener listener, final PeerEvent event)
    {
        try
        {
            listener.onPeerEvent(event);
        }
        catch (final RuntimeException ex)
        {
            LOG.log(Level.WARNING, "spillway-rdma: peer listener " + listener + " failed on " + event + ": " + ex, ex);
        }
    }
}
