package dev.spillway.io;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The contract and the sizing of {@link ChronicleStore}. */
final class ChronicleStoreTest extends StoreContractTest
{
    @Override
    StoreKind kind()
    {
        return StoreKind.CHRONICLE;
    }

    @Override
    Store openStore(final StoreSettings settings) throws IOException
    {
        return Stores.open(StoreKind.CHRONICLE, settings);
    }

    @Test
    void mapIsPreallocatedForMaxBlocksAverageBlocksAndOneBlockMayFillIt() throws IOException
    {
        final Store store = open(64L * MIB);
        assertEquals("chronicle", store.name());
        final long designed = (long)MAX_BLOCKS * AVERAGE_BLOCK;
        final long file = store.diskBytesUsed();
        assertTrue(file >= designed && file < designed * 1.05, file + " bytes for " + designed + " of payload");

        store.write("big", block(store, 16 * MIB, 1), 1);
        assertThrows(StoreFullException.class, () -> store.write("other", block(store, MIB, 2), 1));
        store.delete("big");
        final StoreFullException e =
            assertThrows(StoreFullException.class, () -> store.write("huge", block(store, 17 * MIB, 3), 1));
        assertTrue(e.getMessage().contains("'huge'") && e.getMessage().contains("too large"), e.getMessage());
        store.write("other", block(store, MIB, 2), 1);
        assertEquals(MIB, store.info("other").length());
    }

    @Test
    void capSmallerThanTheDesignShrinksTheMap() throws IOException
    {
        final Store store = open(SMALL_CAP);
        assertTrue(store.diskBytesUsed() <= SMALL_CAP && store.diskBytesUsed() > SMALL_CAP * 3 / 4,
            store.diskBytesUsed() + " bytes");
        assertThrows(IllegalArgumentException.class, () -> open(64 * KIB));
    }
}
