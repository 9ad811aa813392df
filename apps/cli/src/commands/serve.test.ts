import { fakePage } from "@calm-ldp/web/testing";
import { describe, expect, it } from "vitest";
import { parseOptions, UsageError } from "../cli-kit.js";
import { serveCommand } from "./serve.js";

describe("calm-ldp serve", () => {
  it("serves the page on 127.0.0.1 for --seconds, then closes and reports it", async () => {
    const dir = fakePage();
    const logs: string[] = [];
    let fetched: Promise<Response> | undefined;
    const context = {
      json: true,
      log: (line: string) => {
        logs.push(line);
        const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0];
        if (url) fetched = fetch(url);
      },
    };
    const { options } = parseOptions(serveCommand, ["--port", "0", "--dir", dir, "--seconds", "1"]);
    const result = (await serveCommand.run(options, context, [])) as Record<string, unknown>;
    expect(result).toMatchObject({ dir, built: false, methods: ["calm"], stoppedBy: "timeout" });
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetched!;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await response.text()).toContain("<p>page</p>");
    // Closed afterwards: nothing listens on the port any more.
    await expect(fetch(result.url as string)).rejects.toThrow();
    expect(logs.some((line) => line.includes("Ctrl-C"))).toBe(true);
  });

  it("rejects bad options with a usage error naming them", () => {
    expect(() => parseOptions(serveCommand, ["--port", "70000"])).toThrow(UsageError);
    expect(() => parseOptions(serveCommand, ["--port", "70000"])).toThrow(/--port must be <= 65535/);
    expect(() => parseOptions(serveCommand, ["--seconds", "-1"])).toThrow(/--seconds must be >= 0/);
    expect(parseOptions(serveCommand, []).options).toMatchObject({ port: 5180, rebuild: false });
  });
});
