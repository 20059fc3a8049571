package dev.spillway.memory;

import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

/**
 * Anonymous {@code mmap}: page-aligned memory of exactly the pages asked for, returned with {@code munmap}. Used
 * for tiles so the DRAM budget charges what the process really maps. Linux and macOS; elsewhere
 * {@link #AVAILABLE} is false.
 */
final class PageMemory
{
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | (Platform.isMac() ? 0x1000 : 0x20);
    static final boolean AVAILABLE = register();

    private PageMemory()
    {
    }

    private static boolean register()
    {
        if (!Platform.isLinux() && !Platform.isMac())
        {
            return false;
        }
        try
        {
            Native.register(PageMemory.class, Platform.C_LIBRARY_NAME);
            return true;
        }
        catch (final UnsatisfiedLinkError | RuntimeException e)
        {
            return false;
        }
    }

    private static native Pointer mmap(Pointer address, long length, int prot, int flags, int fd, long offset);

    private static native int munmap(Pointer address, long length);

    private static native int madvise(Pointer address, long length, int advice);

    /** {@code MADV_DONTNEED} on Linux; {@code MADV_FREE} on macOS, whose DONTNEED keeps the pages. */
    private static final int MADV_DROP = Platform.isMac() ? 5 : 4;

    /** @return {@code length} bytes of zeroed, page-aligned memory, or {@code null} if the OS refuses. */
    static Pointer map(final long length)
    {
        final Pointer p = mmap(null, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
        return p == null || Pointer.nativeValue(p) == -1 ? null : p;
    }

    /** Returns the pages to the OS but keeps the range mapped: later reads see zeros, writes get fresh pages. */
    static void dropPages(final Pointer p, final long length)
    {
        if (madvise(p, length, MADV_DROP) != 0)
        {
            throw new IllegalStateException("madvise of " + length + " bytes failed, errno " + Native.getLastError());
        }
    }

    static void unmap(final Pointer p, final long length)
    {
        if (munmap(p, length) != 0)
        {
            throw new IllegalStateException("munmap of " + length + " bytes failed, errno " + Native.getLastError());
        }
    }
}
