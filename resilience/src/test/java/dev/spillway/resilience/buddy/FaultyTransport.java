package dev.spillway.resilience.buddy;

import dev.spillway.rdma.ForwardingTransport;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.WindowHandle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A transport with two faults a test may need. Its puts land as late as the contract allows: only once their flush
 * is waited for, reading their source then; a caller that announces a put before its flush completed, or reuses the
 * source before then, sends wrong bytes. And once told, its sends or receives of one tag fail ({@link #failSendsOf},
 * {@link #failReceivesOf}). Everything else goes to the transport it wraps.
 */
final class FaultyTransport extends ForwardingTransport
{
    private static final int NONE = Integer.MIN_VALUE;

    private volatile int failingSends = NONE;
    private volatile int failingReceives = NONE;
    private volatile String failure;
    /** Per owner, every put issued, in order; those before {@link #applied} have landed. */
    private final List<List<Runnable>> puts = new ArrayList<>();
    private final int[] applied;

    FaultyTransport(final Transport inner)
    {
        super(inner);
        this.applied = new int[inner.size()];
        for (int r = 0; r < inner.size(); r++)
        {
            puts.add(new ArrayList<>());
        }
    }

    @Override
    public void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        synchronized (puts)
        {
            puts.get(target.owner()).add(() -> inner().put(target, offset, src));
        }
    }

    /** @return a flush whose puts land only when it is waited for. */
    @Override
    public CompletableFuture<Void> flush(final int target)
    {
        final int issued;
        synchronized (puts)
        {
            issued = puts.get(target).size();
        }
        return new LazyFlush(target, issued);
    }

    /** Lands the puts to {@code target} issued before the {@code issued}-th, then flushes them. */
    private CompletableFuture<Void> land(final int target, final int issued)
    {
        synchronized (puts)
        {
            for (; applied[target] < issued; applied[target]++)
            {
                puts.get(target).get(applied[target]).run();
            }
        }
        return inner().flush(target);
    }

    private final class LazyFlush extends CompletableFuture<Void>
    {
        private final int target;
        private final int issued;

        LazyFlush(final int target, final int issued)
        {
            this.target = target;
            this.issued = issued;
        }

        private void landOnce()
        {
            if (!isDone())
            {
                land(target, issued).whenComplete((ok, failure) ->
                {
                    if (failure == null)
                    {
                        complete(null);
                    }
                    else
                    {
                        completeExceptionally(failure);
                    }
                });
            }
        }

        @Override
        public Void get() throws InterruptedException, ExecutionException
        {
            landOnce();
            return super.get();
        }

        @Override
        public Void get(final long timeout, final TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException
        {
            landOnce();
            return super.get(timeout, unit);
        }

        @Override
        public Void join()
        {
            landOnce();
            return super.join();
        }
    }

    @Override
    public CompletableFuture<Void> flushAll()
    {
        final CompletableFuture<?>[] all = new CompletableFuture<?>[size()];
        for (int r = 0; r < all.length; r++)
        {
            final LazyFlush flush = (LazyFlush) flush(r);
            flush.landOnce();
            all[r] = flush;
        }
        return CompletableFuture.allOf(all);
    }

    /** From now on, a send of {@code tag} throws an {@link IllegalStateException} saying {@code why}. */
    void failSendsOf(final int tag, final String why)
    {
        failure = why;
        failingSends = tag;
    }

    /** From now on, a receive of {@code tag} fails with an {@link IllegalStateException} saying {@code why}. */
    void failReceivesOf(final int tag, final String why)
    {
        failure = why;
        failingReceives = tag;
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        if (header.tag() == failingSends)
        {
            throw new IllegalStateException(failure);
        }
        return inner().send(target, header, src);
    }

    @Override
    public CompletableFuture<Message> receive(final int source, final int tag, final ByteBuffer dst)
    {
        return tag == failingReceives ? CompletableFuture.failedFuture(new IllegalStateException(failure)) :
            inner().receive(source, tag, dst);
    }
}
