package dev.spillway.io;

import net.openhft.compiler.CachedCompiler;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A build step of this module (process-test-classes, see its pom): compiles the flyweight class chronicle-values
 * generates for Chronicle Map's global state into the module's classes, for the release the build targets.
 * chronicle-values loads that class when it is on the class path and otherwise generates and compiles it with javac
 * in every process that opens a map: about 1 s of CPU alone, 4 s a rank when four ranks start on two cores. The
 * class is generated from the dependency the build uses, so it cannot be stale.
 */
public final class ChronicleNativeClasses
{
    private ChronicleNativeClasses()
    {
    }

    /** @param args the classes directory to write into, and the Java release to compile for. */
    public static void main(final String[] args) throws Exception
    {
        final Path classes = Path.of(args[0]);
        final Class<?> state = Class.forName("net.openhft.chronicle.hash.VanillaGlobalMutableState");
        final Class<?> model = Class.forName("net.openhft.chronicle.values.ValueModel");
        final Method acquire = model.getDeclaredMethod("acquire", Class.class);
        final Method generate = Class.forName("net.openhft.chronicle.values.Generators")
            .getDeclaredMethod("generateNativeClass", model, String.class);
        acquire.setAccessible(true);
        generate.setAccessible(true);
        final String simpleName = state.getSimpleName() + "$$Native";
        final String source = (String)generate.invoke(null, acquire.invoke(null, state), simpleName);
        final String name = state.getPackageName() + "." + simpleName;
        try (CachedCompiler compiler = new CachedCompiler(null, classes.toFile(), List.of("--release", args[1],
            "-nowarn")))
        {
            compiler.loadFromJava(name, source);
        }
        final Path written = classes.resolve(name.replace('.', '/') + ".class");
        if (!Files.isRegularFile(written))
        {
            throw new IllegalStateException("compiled " + name + " but found no " + written);
        }
        System.out.println("chronicle-native-classes: " + written);
    }
}
