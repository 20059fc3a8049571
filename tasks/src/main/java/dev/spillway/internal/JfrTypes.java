package dev.spillway.internal;

import jdk.jfr.EventType;

/** The engine's JFR event types, looked up once; {@code isEnabled()} is then a field read. */
final class JfrTypes
{
    static final EventType TASK_RUN = EventType.getEventType(TaskRunEvent.class);
    static final EventType IO_READ = EventType.getEventType(IoReadEvent.class);
    static final EventType IO_WRITE = EventType.getEventType(IoWriteEvent.class);
    static final EventType EVICTION = EventType.getEventType(EvictionEvent.class);

    private JfrTypes()
    {
    }
}
