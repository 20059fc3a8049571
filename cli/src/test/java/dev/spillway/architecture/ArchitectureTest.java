package dev.spillway.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module graph of the README, checked on the classes of every module the command line is built from:
 * {@code memory ← io ← tasks ← ranks ← resilience, kernels ← cli} and {@code rdma ← ranks, resilience}.
 */
class ArchitectureTest
{
    /** The packages of the {@code tasks} module: the public API, its SPIs and the engine. */
    static final String[] TASKS = {"dev.spillway", "dev.spillway.internal..", "dev.spillway.checkpoint..",
        "dev.spillway.spi.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses()
    {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.spillway");
        assertTrue(classes.size() > 200, "the import must see every module's classes, saw " + classes.size());
    }

    static ArchRule modules()
    {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("memory").definedBy("dev.spillway.memory..")
            .layer("io").definedBy("dev.spillway.io..")
            .layer("tasks").definedBy(TASKS)
            .layer("rdma").definedBy("dev.spillway.rdma..")
            .layer("ranks").definedBy("dev.spillway.ranks..")
            .layer("resilience").definedBy("dev.spillway.resilience..")
            .layer("kernels").definedBy("dev.spillway.kernels..")
            .layer("cli").definedBy("dev.spillway.cli..")
            .whereLayer("memory").mayNotAccessAnyLayer()
            .whereLayer("io").mayOnlyAccessLayers("memory")
            .whereLayer("tasks").mayOnlyAccessLayers("memory", "io")
            .whereLayer("rdma").mayNotAccessAnyLayer()
            .whereLayer("ranks").mayOnlyAccessLayers("memory", "io", "tasks", "rdma")
            .whereLayer("resilience").mayOnlyAccessLayers("memory", "io", "tasks", "rdma", "ranks")
            .whereLayer("kernels").mayOnlyAccessLayers("memory", "io", "tasks", "ranks")
            .whereLayer("cli").mayNotBeAccessedByAnyLayer();
    }

    static ArchRule internalsStayInTasks()
    {
        return noClasses().that().resideOutsideOfPackages(TASKS)
            .should().dependOnClassesThat().resideInAPackage("dev.spillway.internal..")
            .because("only the tasks module may use the engine's internals; others use dev.spillway.spi");
    }

    @Test
    void modulesDependOnlyDownTheGraph()
    {
        modules().check(classes);
    }

    @Test
    void nothingOutsideTasksUsesTheEngineInternals()
    {
        internalsStayInTasks().check(classes);
    }
}
