package dev.spillway.cli.report;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A rendered page parsed as XML, with XPath look-ups and polygon geometry. */
final class HtmlDoc
{
    private final Document doc;
    private final XPath xpath = XPathFactory.newInstance().newXPath();

    private HtmlDoc(final Document doc)
    {
        this.doc = doc;
    }

    /** Parses {@code file}; fails if the page is not well-formed XML. */
    static HtmlDoc parse(final Path file) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        return new HtmlDoc(factory.newDocumentBuilder().parse(file.toFile()));
    }

    List<Element> all(final String xpath) throws Exception
    {
        final NodeList nodes = (NodeList)this.xpath.evaluate(xpath, doc, XPathConstants.NODESET);
        final List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            out.add((Element)nodes.item(i));
        }
        return out;
    }

    Element one(final String xpath) throws Exception
    {
        final List<Element> found = all(xpath);
        if (found.size() != 1)
        {
            throw new AssertionError(found.size() + " elements match " + xpath);
        }
        return found.get(0);
    }

    /** @return the points of a polygon or polyline as {x, y} pairs. */
    static List<double[]> points(final Element shape)
    {
        final List<double[]> out = new ArrayList<>();
        for (final String pair : shape.getAttribute("points").trim().split("\\s+"))
        {
            final String[] xy = pair.split(",");
            out.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
        }
        return out;
    }

    /** @return the area of a simple polygon (shoelace formula). */
    static double area(final Element polygon)
    {
        final List<double[]> p = points(polygon);
        double twice = 0;
        for (int i = 0; i < p.size(); i++)
        {
            final double[] a = p.get(i);
            final double[] b = p.get((i + 1) % p.size());
            twice += a[0] * b[1] - b[0] * a[1];
        }
        return Math.abs(twice) / 2;
    }

    static double attr(final Element e, final String name)
    {
        return Double.parseDouble(e.getAttribute(name));
    }
}
