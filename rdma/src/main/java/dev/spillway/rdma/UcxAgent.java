package dev.spillway.rdma;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import org.openucx.jucx.ucs.UcsConstants;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * The UCX progress agent: the only thread that touches the UCX context, worker and endpoints. It drains commands
 * queued by {@link UcxTransport}, calls {@code worker.progress()} on every duty cycle (TCP needs the target to
 * progress for puts to land), answers emulated atomics for its windows, and fails every operation whose deadline
 * passed or whose peer was lost.
 *
 * <p>Tags: bit 63 marks transport-internal messages, bits 32..62 carry the sender's rank, bits 0..31 the user tag
 * (or the internal kind). A two-sided message is two IO vectors, the 24-byte {@link Header} and the payload, so
 * the payload goes from and into the caller's buffers without a copy.
 */
final class UcxAgent implements Agent
{
    private static final long SYSTEM_BIT = 1L << 63;
    private static final long LOW32 = 0xFFFF_FFFFL;
    private static final int ATOMIC_REQUEST = 1;
    private static final int ATOMIC_REPLY = 2;
    private static final int FETCH_AND_ADD = 1;
    private static final int COMPARE_AND_SWAP = 2;
    private static final int REQUEST_BYTES = 48;
    private static final int REPLY_BYTES = 24;
    private static final int SMALL_BYTES = 64;
    private static final int SYSTEM_RECEIVES = 8;
    private static final int COMMANDS_PER_CYCLE = 256;
    private static final long SCAN_NANOS = 1_000_000L;

    private final TransportConfig config;
    private final int rank;
    private final int size;
    private final long timeoutNanos;
    private final ManyToOneConcurrentLinkedQueue<Runnable> commands = new ManyToOneConcurrentLinkedQueue<>();
    private final AtomicReferenceArray<String> lost;
    private final Set<Op<?>> pending = new HashSet<>();
    private final Long2ObjectHashMap<Op<Long>> atomics = new Long2ObjectHashMap<>();
    private final Int2ObjectHashMap<Window> windows = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<UcpMemory> memories = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<UcpRemoteKey> remoteKeys = new Long2ObjectHashMap<>();
    private final ArrayDeque<ByteBuffer> smallBuffers = new ArrayDeque<>();
    private final List<SystemReceive> systemReceives = new ArrayList<>();
    private final boolean[] dirty;
    private final TransportException[] rmaError;
    private final List<List<ByteBuffer>> rmaBuffers = new ArrayList<>();
    private UcpContext context;
    private UcpWorker worker;
    private UcpEndpoint[] endpoints;
    private long nextAtomicId;
    private long nextScan;
    private int nextWindowId;
    private volatile boolean closing;

    UcxAgent(final TransportConfig config, final AtomicReferenceArray<String> lost)
    {
        this.config = config;
        this.rank = config.rank();
        this.size = config.size();
        this.timeoutNanos = config.operationTimeout().toNanos();
        this.lost = lost;
        this.dirty = new boolean[size];
        this.rmaError = new TransportException[size];
        for (int r = 0; r < size; r++)
        {
            rmaBuffers.add(new ArrayList<>());
        }
    }

    @Override
    public String roleName()
    {
        return "spillway-rdma-" + rank;
    }

    /** Queues {@code command} for the agent thread. */
    void submit(final Runnable command)
    {
        commands.offer(command);
    }

    /** Runs {@code call} on the agent thread. */
    <T> CompletableFuture<T> call(final Supplier<T> call)
    {
        final CompletableFuture<T> future = new CompletableFuture<>();
        submit(() ->
        {
            try
            {
                future.complete(call.get());
            }
            catch (final Throwable t)
            {
                future.completeExceptionally(t);
            }
        });
        return future;
    }

    @Override
    public void onStart()
    {
        final UcpParams params = new UcpParams().requestTagFeature().requestRmaFeature();
        if (!config.allowNonLoopback())
        {
            params.setConfig("NET_DEVICES", "lo");
        }
        context = new UcpContext(params);
        worker = context.newWorker(new UcpWorkerParams());
    }

    @Override
    public int doWork() throws Exception
    {
        int work = 0;
        Runnable command;
        while (work < COMMANDS_PER_CYCLE && (command = commands.poll()) != null)
        {
            command.run();
            work++;
        }
        int events;
        while ((events = worker.progress()) > 0)
        {
            work += events;
        }
        final long now = System.nanoTime();
        if (now - nextScan >= 0)
        {
            nextScan = now + SCAN_NANOS;
            expire(now);
        }
        return work;
    }

    // ---- set-up, on the agent thread ----

    byte[] workerAddress()
    {
        final ByteBuffer address = worker.getAddress();
        final byte[] bytes = new byte[address.remaining()];
        address.get(bytes);
        return bytes;
    }

    Void connect(final byte[][] addresses)
    {
        endpoints = new UcpEndpoint[size];
        for (int r = 0; r < size; r++)
        {
            final ByteBuffer address = ByteBuffer.allocateDirect(addresses[r].length);
            address.put(addresses[r]).flip();
            final UcpEndpointParams params = new UcpEndpointParams().setUcpAddress(address).setName("rank-" + r);
            if (config.peerErrorHandling())
            {
                final int peer = r;
                params.setPeerErrorHandlingMode().setErrorHandler((ep, status, message) ->
                    peerLost(peer, "UCX reported " + message + " (status " + status + ")"));
            }
            endpoints[r] = worker.newEndpoint(params);
        }
        for (int i = 0; i < SYSTEM_RECEIVES; i++)
        {
            systemReceives.add(new SystemReceive(ATOMIC_REQUEST, REQUEST_BYTES));
            systemReceives.add(new SystemReceive(ATOMIC_REPLY, REPLY_BYTES));
        }
        systemReceives.forEach(SystemReceive::post);
        return null;
    }

    Window createWindow(final String name, final int length)
    {
        final UcpMemory memory = context.memoryMap(new UcpMemMapParams().allocate().setLength(length));
        final ByteBuffer view = UcxUtils.getByteBufferView(memory.getAddress(), length);
        for (int i = 0; i < length; i += Long.BYTES)
        {
            view.putLong(i, 0L);
        }
        return expose(name, memory, view);
    }

    Window registerWindow(final String name, final ByteBuffer slice)
    {
        return expose(name, context.registerMemory(slice), slice);
    }

    private Window expose(final String name, final UcpMemory memory, final ByteBuffer view)
    {
        final int id = ++nextWindowId;
        final ByteBuffer key = memory.getRemoteKeyBuffer();
        final byte[] keyBytes = new byte[key.remaining()];
        key.get(keyBytes);
        final WindowHandle handle = new WindowHandle(rank, id, name, view.capacity(), memory.getAddress(), keyBytes);
        final Window window = new Window(handle, view, () -> release(id));
        windows.put(id, window);
        memories.put(id, memory);
        return window;
    }

    private void release(final int id)
    {
        final CompletableFuture<Void> done = call(() ->
        {
            windows.remove(id);
            final UcpMemory memory = memories.remove(id);
            if (memory != null)
            {
                memory.deregister();
            }
            return null;
        });
        final long deadline = System.nanoTime() + timeoutNanos;
        while (!done.isDone())
        {
            if (closing)
            {
                return; // onClose deregisters every window
            }
            if (System.nanoTime() - deadline >= 0)
            {
                throw new TransportTimeoutException(rank, "rank " + rank + ": closing window " + id,
                    config.operationTimeout().toMillis());
            }
            java.util.concurrent.locks.LockSupport.parkNanos(100_000L);
        }
        done.join();
    }

    // ---- two-sided ----

    void send(final int target, final Header header, final ByteBuffer src, final CompletableFuture<Void> future)
    {
        final String what = "send from rank " + rank + " to rank " + target + " tag " + header.tag();
        if (refuse(target, what, future))
        {
            return;
        }
        final ByteBuffer head = small();
        header.encode(rank, src.remaining(), head, 0);
        final Op<Void> op = new Op<>(target, what, future, head, src, request -> null);
        final int length = src.remaining();
        final long tag = ((long)rank << 32) | (header.tag() & LOW32);
        final long headAddress = UcxUtils.getAddress(head);
        final long[] addresses = length == 0 ? new long[] {headAddress} :
            new long[] {headAddress, UcxUtils.getAddress(src)};
        final long[] sizes = length == 0 ? new long[] {Header.BYTES} : new long[] {Header.BYTES, length};
        issue(op, () -> endpoints[target].sendTaggedNonBlocking(addresses, sizes, tag, op));
    }

    void receive(final int source, final int tag, final ByteBuffer dst, final CompletableFuture<Message> future)
    {
        final String what = "receive at rank " + rank + " tag " + tag + " from " +
            (source == Transport.ANY_SOURCE ? "any rank" : "rank " + source);
        if (source != Transport.ANY_SOURCE && refuse(source, what, future))
        {
            return;
        }
        final ByteBuffer head = small();
        final int capacity = dst.remaining();
        final Op<Message> op = new Op<>(source, what, future, head, dst,
            request -> new Message(Header.decode(head, 0), Header.payloadLength(head, 0)));
        op.capacity = capacity;
        final long matchTag = source == Transport.ANY_SOURCE ? (tag & LOW32) : ((long)source << 32) | (tag & LOW32);
        final long mask = source == Transport.ANY_SOURCE ? SYSTEM_BIT | LOW32 : -1L;
        final long[] addresses = capacity == 0 ? new long[] {UcxUtils.getAddress(head)} :
            new long[] {UcxUtils.getAddress(head), UcxUtils.getAddress(dst)};
        final long[] sizes = capacity == 0 ? new long[] {Header.BYTES} : new long[] {Header.BYTES, capacity};
        issue(op, () -> worker.recvTaggedNonBlocking(addresses, sizes, matchTag, mask, op));
    }

    // ---- one-sided ----

    void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        final int owner = target.owner();
        final UcpRemoteKey key = remoteKey(target, "put");
        if (key != null && src.remaining() > 0)
        {
            endpoints[owner].putNonBlockingImplicit(UcxUtils.getAddress(src), src.remaining(),
                target.address() + offset, key);
            rmaBuffers.get(owner).add(src);
        }
        dirty[owner] = true;
    }

    void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        final int owner = target.owner();
        final UcpRemoteKey key = remoteKey(target, "get");
        if (key != null && dst.remaining() > 0)
        {
            endpoints[owner].getNonBlockingImplicit(target.address() + offset, key, UcxUtils.getAddress(dst),
                dst.remaining());
            rmaBuffers.get(owner).add(dst);
        }
        dirty[owner] = true;
    }

    private UcpRemoteKey remoteKey(final WindowHandle target, final String operation)
    {
        final int owner = target.owner();
        final String lostReason = lost.get(owner);
        if (lostReason != null || closing)
        {
            recordRmaError(owner, new PeerFailedException(owner, operation + " to window '" + target.name() + "'",
                closing ? "this rank is closing" : lostReason));
            return null;
        }
        final long id = ((long)owner << 32) | (target.id() & LOW32);
        UcpRemoteKey key = remoteKeys.get(id);
        if (key == null)
        {
            final byte[] packed = target.remoteKey();
            final ByteBuffer buffer = ByteBuffer.allocateDirect(packed.length);
            buffer.put(packed).flip();
            try
            {
                key = endpoints[owner].unpackRemoteKey(buffer);
            }
            catch (final RuntimeException ex)
            {
                recordRmaError(owner, new TransportException(operation + " to window '" + target.name() +
                    "' of rank " + owner + ": its remote key does not unpack: " + ex.getMessage(), ex));
                return null;
            }
            remoteKeys.put(id, key);
        }
        return key;
    }

    private void recordRmaError(final int owner, final TransportException error)
    {
        if (rmaError[owner] == null)
        {
            rmaError[owner] = error;
        }
    }

    void flush(final int target, final CompletableFuture<Void> future)
    {
        final String what = "flush from rank " + rank + " to rank " + target;
        final TransportException error = rmaError[target];
        rmaError[target] = null;
        dirty[target] = false;
        if (error != null)
        {
            rmaBuffers.get(target).clear();
            future.completeExceptionally(error);
            return;
        }
        if (refuse(target, what, future))
        {
            rmaBuffers.get(target).clear();
            return;
        }
        final List<ByteBuffer> buffers = new ArrayList<>(rmaBuffers.get(target));
        rmaBuffers.get(target).clear();
        final Op<Void> op = new Op<>(target, what, future, null, buffers, request -> null);
        issue(op, () -> endpoints[target].flushNonBlocking(op));
    }

    void flushAll(final CompletableFuture<Void> future)
    {
        final List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int t = 0; t < size; t++)
        {
            if (dirty[t] || rmaError[t] != null || (lost.get(t) == null && !rmaBuffers.get(t).isEmpty()))
            {
                final CompletableFuture<Void> one = new CompletableFuture<>();
                flush(t, one);
                all.add(one);
            }
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).whenComplete((v, t) ->
        {
            if (t == null)
            {
                future.complete(null);
            }
            else
            {
                future.completeExceptionally(t instanceof java.util.concurrent.CompletionException ? t.getCause() : t);
            }
        });
    }

    // ---- atomics, emulated through the owner's agent ----

    void atomic(final int kind, final WindowHandle target, final long offset, final long a, final long b,
        final CompletableFuture<Long> future)
    {
        final int owner = target.owner();
        final String what = (kind == FETCH_AND_ADD ? "fetchAndAdd" : "compareAndSwap") + " on window '" +
            target.name() + "' of rank " + owner + " at offset " + offset;
        if (refuse(owner, what, future))
        {
            return;
        }
        final long id = ++nextAtomicId;
        final ByteBuffer request = small();
        request.putInt(0, kind).putInt(4, target.id()).putLong(8, id).putLong(16, offset).putLong(24, a)
            .putLong(32, b).putInt(40, rank);
        final Op<Long> op = new Op<>(owner, what, future, null, null, r -> null);
        pending.add(op);
        atomics.put(id, op);
        final UcxCallback sent = new UcxCallback()
        {
            @Override
            public void onSuccess(final UcpRequest r)
            {
                smallBuffers.push(request);
            }

            @Override
            public void onError(final int status, final String message)
            {
                smallBuffers.push(request);
                if (atomics.remove(id) != null && pending.remove(op))
                {
                    op.future.completeExceptionally(failure(op, status, message));
                }
            }
        };
        endpoints[owner].sendTaggedNonBlocking(UcxUtils.getAddress(request), REQUEST_BYTES,
            SYSTEM_BIT | ((long)rank << 32) | ATOMIC_REQUEST, sent);
    }

    static int fetchAndAddKind()
    {
        return FETCH_AND_ADD;
    }

    static int compareAndSwapKind()
    {
        return COMPARE_AND_SWAP;
    }

    private void serveAtomic(final int source, final ByteBuffer request)
    {
        final int kind = request.getInt(0);
        final Window window = windows.get(request.getInt(4));
        final long id = request.getLong(8);
        final long offset = request.getLong(16);
        long value = 0;
        int status = 0;
        if (window == null)
        {
            status = 1;
        }
        else if (offset < 0 || offset > window.size() - Long.BYTES || (offset & 7) != 0)
        {
            status = 2;
        }
        else if (kind == FETCH_AND_ADD)
        {
            value = LongWords.getAndAdd(window.memory(), (int)offset, request.getLong(24));
        }
        else
        {
            value = LongWords.compareAndExchange(window.memory(), (int)offset, request.getLong(24),
                request.getLong(32));
        }
        if (lost.get(source) != null || closing)
        {
            return;
        }
        final ByteBuffer reply = small();
        reply.putLong(0, id).putLong(8, value).putInt(16, status);
        endpoints[source].sendTaggedNonBlocking(UcxUtils.getAddress(reply), REPLY_BYTES,
            SYSTEM_BIT | ((long)rank << 32) | ATOMIC_REPLY, new UcxCallback()
            {
                @Override
                public void onSuccess(final UcpRequest r)
                {
                    smallBuffers.push(reply);
                }

                @Override
                public void onError(final int status, final String message)
                {
                    smallBuffers.push(reply);
                }
            });
    }

    private void completeAtomic(final ByteBuffer reply)
    {
        final Op<Long> op = atomics.remove(reply.getLong(0));
        if (op == null || !pending.remove(op))
        {
            return;
        }
        final int status = reply.getInt(16);
        if (status == 0)
        {
            op.future.complete(reply.getLong(8));
        }
        else
        {
            op.future.completeExceptionally(new TransportException(op.what + " refused by the owner: " +
                (status == 1 ? "the window is not registered there (closed?)" : "offset outside the window")));
        }
    }

    // ---- failures and deadlines ----

    /** Marks {@code peer} lost and fails everything waiting on it; idempotent. */
    void peerLost(final int peer, final String reason)
    {
        if (!lost.compareAndSet(peer, null, reason))
        {
            return;
        }
        final ArrayList<Op<?>> failed = new ArrayList<>();
        for (final Iterator<Op<?>> it = pending.iterator(); it.hasNext(); )
        {
            final Op<?> op = it.next();
            if (op.rank == peer)
            {
                it.remove();
                failed.add(op);
            }
        }
        atomics.values().removeIf(op -> op.rank == peer);
        // Outside the iteration: completing a future runs callbacks that may issue operations.
        for (final Op<?> op : failed)
        {
            op.abandon(new PeerFailedException(peer, op.what, reason));
        }
        if (config.peerErrorHandling() && endpoints != null && endpoints[peer] != null)
        {
            // Not from inside UCX's error callback: on the next duty cycle. Fails what UCX still holds for the peer.
            final UcpEndpoint endpoint = endpoints[peer];
            endpoints[peer] = null;
            submit(endpoint::closeNonBlockingForce);
        }
    }

    private void expire(final long now)
    {
        ArrayList<Op<?>> expired = null;
        for (final Iterator<Op<?>> it = pending.iterator(); it.hasNext(); )
        {
            final Op<?> op = it.next();
            if (now - op.deadline >= 0)
            {
                it.remove();
                if (op.future.isDone())
                {
                    continue;
                }
                atomics.values().remove(op);
                expired = expired == null ? new ArrayList<>() : expired;
                expired.add(op);
            }
        }
        if (expired != null)
        {
            for (final Op<?> op : expired)
            {
                op.abandon(new TransportTimeoutException(op.rank, op.what, config.operationTimeout().toMillis()));
            }
        }
    }

    private boolean refuse(final int peer, final String what, final CompletableFuture<?> future)
    {
        final String reason = closing ? "this rank is closing" : lost.get(peer);
        if (reason != null)
        {
            future.completeExceptionally(new PeerFailedException(closing ? rank : peer, what, reason));
            return true;
        }
        return false;
    }

    private TransportException failure(final Op<?> op, final int status, final String message)
    {
        if (op.rank >= 0 && peerFailure(status))
        {
            peerLost(op.rank, "UCX reported " + message + " (status " + status + ")");
        }
        final String reason = op.rank >= 0 ? lost.get(op.rank) : null;
        if (reason != null)
        {
            return new PeerFailedException(op.rank, op.what, reason);
        }
        if (status == UcsConstants.STATUS.UCS_ERR_MESSAGE_TRUNCATED)
        {
            return new TransportException(op.what + ": the message exceeds the buffer's " + op.capacity + " bytes");
        }
        return new TransportException(op.what + " failed: " + message + " (UCX status " + status + ")");
    }

    /** @return true for the UCX statuses that mean the peer (not the request) failed. */
    private static boolean peerFailure(final int status)
    {
        return status == UcsConstants.STATUS.UCS_ERR_ENDPOINT_TIMEOUT ||
            status == UcsConstants.STATUS.UCS_ERR_CONNECTION_RESET ||
            status == UcsConstants.STATUS.UCS_ERR_UNREACHABLE ||
            status == UcsConstants.STATUS.UCS_ERR_NOT_CONNECTED ||
            status == UcsConstants.STATUS.UCS_ERR_IO_ERROR;
    }

    private <T> void issue(final Op<T> op, final Supplier<UcpRequest> start)
    {
        pending.add(op);
        try
        {
            op.request = start.get();
        }
        catch (final RuntimeException ex)
        {
            pending.remove(op);
            op.release();
            op.future.completeExceptionally(new TransportException(op.what + " failed to start: " + ex, ex));
        }
    }

    private ByteBuffer small()
    {
        final ByteBuffer b = smallBuffers.poll();
        if (b != null)
        {
            return b;
        }
        final ByteBuffer chunk = ByteBuffer.allocateDirect(SMALL_BYTES * 64);
        for (int i = 1; i < 64; i++)
        {
            smallBuffers.push(chunk.slice(i * SMALL_BYTES, SMALL_BYTES).order(ByteOrder.LITTLE_ENDIAN));
        }
        return chunk.slice(0, SMALL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    // ---- close ----

    @Override
    public void onClose()
    {
        closing = true;
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            command.run();
        }
        final List<Op<?>> abandoned = new ArrayList<>(pending);
        pending.clear();
        for (final Op<?> op : abandoned)
        {
            op.abandon(new PeerFailedException(rank, op.what, "this rank closed its transport"));
        }
        atomics.clear();
        systemReceives.forEach(SystemReceive::cancel);
        final List<UcpRequest> closes = new ArrayList<>();
        if (endpoints != null)
        {
            for (int r = 0; r < size; r++)
            {
                if (endpoints[r] == null || (!config.peerErrorHandling() && lost.get(r) != null))
                {
                    continue; // closed after its loss, or (without error handling) left to the worker's destruction
                }
                try
                {
                    closes.add(config.peerErrorHandling() ? endpoints[r].closeNonBlockingForce() :
                        endpoints[r].closeNonBlockingFlush());
                }
                catch (final RuntimeException ex)
                {
                    System.err.println("spillway-rdma: rank " + rank + " closing endpoint to rank " + r + ": " + ex);
                }
            }
        }
        final long deadline = System.nanoTime() + Math.min(timeoutNanos, 2_000_000_000L);
        try
        {
            while (System.nanoTime() - deadline < 0 && closes.stream().anyMatch(r -> r != null && !r.isCompleted()))
            {
                worker.progress();
            }
        }
        catch (final Exception ex)
        {
            System.err.println("spillway-rdma: rank " + rank + " progress while closing: " + ex);
        }
        remoteKeys.values().forEach(UcpRemoteKey::close);
        memories.values().forEach(UcpMemory::deregister);
        memories.clear();
        windows.clear();
        if (worker != null)
        {
            worker.close();
        }
        if (context != null)
        {
            context.close();
        }
    }

    /** One operation waiting for UCX: its future, deadline and the buffers UCX may still touch. */
    private final class Op<T> extends UcxCallback
    {
        final int rank;
        final String what;
        final CompletableFuture<T> future;
        final long deadline;
        final ByteBuffer small;
        final Object keepAlive;
        final Result<T> result;
        UcpRequest request;
        int capacity;
        boolean released;

        Op(final int rank, final String what, final CompletableFuture<T> future, final ByteBuffer small,
            final Object keepAlive, final Result<T> result)
        {
            this.rank = rank;
            this.what = what;
            this.future = future;
            this.deadline = System.nanoTime() + timeoutNanos;
            this.small = small;
            this.keepAlive = keepAlive;
            this.result = result;
        }

        @Override
        public void onSuccess(final UcpRequest r)
        {
            pending.remove(this);
            release();
            if (!future.isDone())
            {
                try
                {
                    future.complete(result.of(r));
                }
                catch (final RuntimeException ex)
                {
                    future.completeExceptionally(ex);
                }
            }
        }

        @Override
        public void onError(final int status, final String message)
        {
            pending.remove(this);
            release();
            if (!future.isDone())
            {
                future.completeExceptionally(failure(this, status, message));
            }
        }

        /** Fails the future now; buffers stay reserved until UCX reports the request done. */
        void abandon(final TransportException error)
        {
            future.completeExceptionally(error);
            if (request != null && !request.isCompleted() && what.startsWith("receive"))
            {
                worker.cancelRequest(request);
            }
        }

        void release()
        {
            if (!released)
            {
                released = true;
                if (small != null)
                {
                    smallBuffers.push(small);
                }
            }
        }
    }

    /** Maps a completed request to the operation's result. */
    private interface Result<T>
    {
        T of(UcpRequest request);
    }

    /** A receive always posted for transport-internal messages of one kind, re-posted after each. */
    private final class SystemReceive extends UcxCallback
    {
        final int kind;
        final ByteBuffer buffer;
        UcpRequest request;

        SystemReceive(final int kind, final int bytes)
        {
            this.kind = kind;
            this.buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
        }

        void post()
        {
            if (!closing)
            {
                request = worker.recvTaggedNonBlocking(UcxUtils.getAddress(buffer), buffer.capacity(),
                    SYSTEM_BIT | kind, SYSTEM_BIT | LOW32, this);
            }
        }

        void cancel()
        {
            if (request != null && !request.isCompleted())
            {
                worker.cancelRequest(request);
            }
        }

        @Override
        public void onSuccess(final UcpRequest r)
        {
            if (kind == ATOMIC_REQUEST)
            {
                // The requester's rank is in the payload: JUCX 1.12 loses the sender tag of immediate completions.
                serveAtomic(buffer.getInt(40), buffer);
            }
            else
            {
                completeAtomic(buffer);
            }
            post();
        }

        @Override
        public void onError(final int status, final String message)
        {
            if (!closing && status != UcsConstants.STATUS.UCS_ERR_CANCELED)
            {
                System.err.println("spillway-rdma: rank " + rank + " internal receive failed: " + message);
                post();
            }
        }
    }
}
