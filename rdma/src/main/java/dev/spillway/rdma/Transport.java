package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One rank's view of the job: two-sided tagged messages, one-sided windows (put, get, flush) and 64-bit atomics.
 * Every method may be called from any thread. Buffers handed to an operation must be direct and must not be
 * touched until its future (for put and get: the next flush towards that rank) completes.
 *
 * <p>Buffers are used from their position to their limit; their position and limit are not changed.
 *
 * <p>Every future completes within a bound: normally, with {@link PeerFailedException} naming the rank once a peer
 * is lost, or with {@link TransportTimeoutException} once the operation timeout passes. Futures may complete on the
 * transport's progress thread: do no blocking work in their callbacks (use the {@code *Async} variants).
 *
 * <p>Membership: each rank has an incarnation ({@link TransportConfig#incarnation()}). A lost peer stays lost until a
 * higher incarnation of it rejoins the job; operations towards it then work again, now reaching the new
 * incarnation. {@link #addPeerListener Listeners} hear of both. Messages and atomic requests of a lost incarnation
 * (a paused or cut-off process that comes back after its loss: a zombie) are dropped and counted
 * ({@link #fencedMessages()}); what each implementation fences beyond that, its class documentation says. Losing
 * rank 0, the coordinator, cannot be survived by a rejoin.
 */
public interface Transport extends AutoCloseable
{
    /** Source wildcard for {@link #receive}. */
    int ANY_SOURCE = -1;

    /** @return this rank, 0 to {@code size() - 1}. */
    int rank();

    /** @return the number of ranks in the job. */
    int size();

    /** @return this rank's incarnation, which every message it sends carries. */
    int incarnation();

    /**
     * @param rank a rank, this one included.
     * @return its current incarnation as this rank knows it: the one that joined last, lost or alive.
     */
    int incarnation(int rank);

    /**
     * Sends {@code src}'s remaining bytes to {@code target}, preceded by {@code header}. Messages from one sender with
     * one tag are matched in the order they were sent.
     *
     * @param target receiving rank (may be this rank).
     * @param header matching tag and protocol fields; its rank must be {@link Header#NO_RANK} or this rank.
     * @param src direct buffer; not to be modified until the future completes.
     * @return completes when {@code src} may be reused (possibly only once the receiver matched the message).
     */
    CompletableFuture<Void> send(int target, Header header, ByteBuffer src);

    /**
     * Receives the next message with {@code tag} from {@code source} into {@code dst} from its position. A message
     * longer than {@code dst.remaining()} fails the receive, naming the sizes.
     *
     * @param source sending rank or {@link #ANY_SOURCE}.
     * @param tag matching tag.
     * @param dst direct buffer.
     * @return the header and the payload length.
     */
    CompletableFuture<Message> receive(int source, int tag, ByteBuffer dst);

    /**
     * Allocates a window the transport owns (with UCX: memory UCX allocates, which shared-memory transports can reach
     * without the target's help).
     *
     * @param name for errors and logs.
     * @param size bytes, at least 8.
     * @return the window, zeroed.
     */
    Window createWindow(String name, int size);

    /**
     * Exposes the caller's direct buffer, from its position to its limit, as a window. The buffer must stay reachable
     * until the window is closed.
     *
     * @param name for errors and logs.
     * @param memory direct buffer.
     * @return the window.
     */
    Window registerWindow(String name, ByteBuffer memory);

    /**
     * Starts writing {@code src}'s remaining bytes at {@code offset} in {@code target}. Non-blocking: the data is
     * visible at the target, and {@code src} reusable, only once a later {@link #flush} towards the owner completed.
     *
     * @throws WindowBoundsException when the bytes do not fit the window (nothing is sent).
     */
    void put(WindowHandle target, long offset, ByteBuffer src);

    /**
     * Starts reading {@code dst.remaining()} bytes at {@code offset} of {@code target} into {@code dst}. The data is
     * valid only once a later {@link #flush} towards the owner completed.
     *
     * @throws WindowBoundsException when the bytes are not inside the window (nothing is sent).
     */
    void get(WindowHandle target, long offset, ByteBuffer dst);

    /**
     * Completes every put and get this rank issued towards {@code target} before the call, at both ends.
     *
     * @param target the owner of the windows.
     * @return completes when they are done; fails if one of them failed. It may be complete on return (then the
     *         actions added to it run on the adding thread).
     */
    CompletableFuture<Void> flush(int target);

    /** @return {@link #flush} towards every live rank; fails if any of them fails. */
    CompletableFuture<Void> flushAll();

    /**
     * Atomically adds {@code delta} to the native-order 64-bit word at {@code offset} (8-aligned) of {@code target}.
     * Atomic against other atomics on the word and the owner's own VarHandle atomics; not against plain puts.
     *
     * @return the previous value.
     */
    CompletableFuture<Long> fetchAndAdd(WindowHandle target, long offset, long delta);

    /**
     * Atomically replaces the 64-bit word at {@code offset} (8-aligned) of {@code target} with {@code update} if it
     * equals {@code expected}.
     *
     * @return the previous value (equal to {@code expected} when the swap happened).
     */
    CompletableFuture<Long> compareAndSwap(WindowHandle target, long offset, long expected, long update);

    /**
     * @param rank a peer.
     * @return the reason its current incarnation was lost, or null while it is considered alive (again null once a
     *         new incarnation rejoined).
     */
    String lostReason(int rank);

    /**
     * @return why the job declared this process's own incarnation lost, as rank 0 told it before closing its
     *         connection (a zombie: paused or cut off, then running on); null while it was not.
     */
    default String selfLostReason()
    {
        return null;
    }

    /** @return the lowest-numbered peer now considered lost, or -1 while every peer is alive. */
    default int firstLost()
    {
        for (int r = 0; r < size(); r++)
        {
            if (r != rank() && lostReason(r) != null)
            {
                return r;
            }
        }
        return -1;
    }

    /**
     * Adds a listener for peers lost and rejoined. It hears of the events that happen after this call returns, each
     * once, on the transport's event thread (see {@link PeerListener}); not of earlier ones, which {@link #lostReason}
     * and {@link #incarnation(int)} show. An event concurrent with the call may be told or not: read those after
     * adding to miss nothing (an event may then be seen both ways).
     *
     * @param listener told of each event from now on.
     */
    void addPeerListener(PeerListener listener);

    /** @param listener no longer told of events (one being told may finish). */
    void removePeerListener(PeerListener listener);

    /**
     * @return how many messages (and atomic requests) of lost incarnations this rank dropped so far: ones that
     *         arrived, or were still waiting for a receive, once their sender's incarnation was declared lost.
     */
    long fencedMessages();

    /**
     * Stops progress and releases everything; pending operations, and any issued later, fail naming this rank as
     * closed. Idempotent: a call made while another closes returns once that one has.
     */
    @Override
    void close();
}
