package dev.spillway.io;

import com.sun.nio.file.ExtendedOpenOption;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The contract and the O_DIRECT specifics of {@link DirectIoStore}. */
final class DirectIoStoreTest extends StoreContractTest
{
    @Override
    StoreKind kind()
    {
        return StoreKind.DIRECT;
    }

    @Override
    Store openStore(final StoreSettings settings) throws IOException
    {
        return Stores.open(StoreKind.DIRECT, settings);
    }

    @Test
    void usesDirectIoWhereTheFileSystemTakesIt() throws IOException
    {
        final DirectIoStore store = (DirectIoStore)open(ROOMY_CAP);
        assertEquals("direct", store.name());
        assertEquals(Files.getFileStore(dir).getBlockSize(), store.alignment());
        boolean supported;
        try (FileChannel probe = FileChannel.open(dir.resolve("probe"), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT))
        {
            supported = probe.isOpen();
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            supported = false;
        }
        assertEquals(supported, store.directIo());
    }

    @Test
    void misalignedOrHeapBuffersAreRejected() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        final ByteBuffer misaligned = ByteBuffer.allocateDirect(3 * store.alignment())
            .alignedSlice(store.alignment()).position(1).slice();
        misaligned.limit(100);
        final IllegalArgumentException onWrite =
            assertThrows(IllegalArgumentException.class, () -> store.write("m", misaligned, 1));
        assertTrue(onWrite.getMessage().contains("'m'") && onWrite.getMessage().contains("not aligned to " +
            store.alignment()), onWrite.getMessage());

        store.write("m", block(store, 100, 1), 1);
        assertThrows(IllegalArgumentException.class, () -> store.read("m", misaligned));
        final IllegalArgumentException heap =
            assertThrows(IllegalArgumentException.class, () -> store.read("m", ByteBuffer.allocate(store.alignment())));
        assertTrue(heap.getMessage().contains("direct"), heap.getMessage());
        final IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
            () -> store.read("m", ByteBuffer.allocateDirect(2 * store.alignment()).alignedSlice(store.alignment())
                .limit(100).slice()));
        assertTrue(small.getMessage().contains("needs " + store.alignment()), small.getMessage());
    }

    @Test
    void blocksSpreadOverSeveralSlabsAndOutsizedBlocksGetTheirOwn() throws IOException
    {
        final DirectIoStore store = new DirectIoStore(new StoreSettings(dir, 64L * MIB, AVERAGE_BLOCK, MAX_BLOCKS), MIB);
        try
        {
            for (int i = 0; i < 10; i++)
            {
                store.write("s" + i, block(store, 300_000, i), i);
            }
            store.write("huge", block(store, 3 * MIB, 77), 1);
            for (int i = 0; i < 10; i++)
            {
                final ByteBuffer dst = buffer(store, 300_000);
                assertEquals(300_000, store.read("s" + i, dst));
                assertArrayEquals(bytes(300_000, i), contents(dst, 300_000), "block s" + i);
            }
            final ByteBuffer dst = buffer(store, 3 * MIB);
            assertEquals(3 * MIB, store.read("huge", dst));
            assertArrayEquals(bytes(3 * MIB, 77), contents(dst, 3 * MIB));
            assertTrue(store.diskBytesUsed() >= 6L * MIB, store.diskBytesUsed() + " bytes used");
        }
        finally
        {
            store.close();
        }
    }
}
