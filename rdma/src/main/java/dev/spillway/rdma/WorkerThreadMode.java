package dev.spillway.rdma;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Checks that a UCX worker is thread-safe, as callers' puts need: a libucx built without thread support quietly gives
 * a single-threaded worker when asked for a thread-safe one. JUCX does not expose {@code ucp_worker_query}, so it is
 * called through JNA on the library JUCX loaded.
 */
final class WorkerThreadMode
{
    private static final long FIELD_THREAD_MODE = 1L;
    private static final int THREAD_MODE_OFFSET = 8;
    private static final int MULTI = 2;
    private static final String[] MODES = {"single", "serialized", "multi"};

    private WorkerThreadMode()
    {
    }

    /** @throws TransportException naming the mode when {@code worker} is not thread-safe, or cannot be asked. */
    static void requireMulti(final UcpWorker worker)
    {
        final int mode;
        try
        {
            final Function query = NativeLibrary.getInstance("libucp.so.0").getFunction("ucp_worker_query");
            final Memory attributes = new Memory(256);
            attributes.clear();
            attributes.setLong(0, FIELD_THREAD_MODE);
            final int status = query.invokeInt(new Object[] {new Pointer(worker.getNativeId()), attributes});
            if (status != 0)
            {
                throw new TransportException("ucp_worker_query failed with UCX status " + status);
            }
            mode = attributes.getInt(THREAD_MODE_OFFSET);
        }
        catch (final UnsatisfiedLinkError e)
        {
            throw new TransportException("cannot ask UCX whether its worker is thread-safe: " + e.getMessage(), e);
        }
        if (mode != MULTI)
        {
            throw new TransportException("the UCX worker is " + (mode >= 0 && mode < MODES.length ? MODES[mode] :
                "mode " + mode) + "-threaded, not multi-threaded: this libucx was built without thread support " +
                "(ucx_info -b should show ENABLE_MT 1); puts from callers' threads need it");
        }
    }
}
