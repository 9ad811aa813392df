import { type Command, UsageError } from "../cli-kit.js";
import { adminToken, campaignCall, required } from "./collector-admin.js";
import { createCampaign } from "./collector-campaign.js";
import { close } from "./collector-close.js";
import { runIssuer } from "./collector-issuer.js";
import { migrate } from "./collector-migrate.js";
import {
  ALLOWED,
  COLLECTOR_OPTION_SPECS,
  type CollectorOptions,
  SUBCOMMANDS,
  type Subcommand,
} from "./collector-options.js";
import { query } from "./collector-query.js";
import { serve } from "./collector-serve.js";
import { loadRecords, simulate } from "./collector-simulate.js";
import { status } from "./collector-status.js";

export { ADMIN_TOKEN_VARIABLE } from "./collector-admin.js";

/**
 * `calm-ldp collector <subcommand>`: checks that every option given applies to the
 * subcommand (`ALLOWED`), then runs it from its own file: serve (collector-serve.ts),
 * migrate, simulate, status, close, query, issuer (collector-<name>.ts) and campaign
 * (collector-campaign.ts).
 */
export const collectorCommand: Command = {
  name: "collector",
  summary:
    "Run a CALM collector (serve; migrate brings a database's schema to this version), send it simulated users over HTTP (simulate), read a round's counts (status) or a marginal (query), close a round (close), create a campaign of rounds under one plan (campaign), run the token issuer apart (issuer). Admin token: $CALM_LDP_ADMIN_TOKEN.",
  positionals: ["serve|simulate|status|query|close|campaign|migrate|issuer"],
  options: COLLECTOR_OPTION_SPECS,
  async run(raw, context, positionals) {
    const subcommand = positionals[0] as Subcommand | undefined;
    if (subcommand === undefined || !SUBCOMMANDS.includes(subcommand))
      throw new UsageError(
        `collector: the first argument must be one of ${SUBCOMMANDS.join(", ")} (got ${JSON.stringify(subcommand)})`,
      );
    const options = raw as unknown as CollectorOptions;
    const defaults = collectorCommand.options;
    for (const [name, value] of Object.entries(raw)) {
      if (value !== undefined && value !== defaults[name]?.default && !ALLOWED[subcommand].includes(name))
        throw new UsageError(`collector ${subcommand}: --${name} does not apply to ${subcommand}`);
    }
    if (subcommand === "serve") return serve(options, collectorCommand.options, adminToken("serve"), context);
    if (subcommand === "migrate") return migrate(options, collectorCommand.options);
    if (subcommand === "issuer") return runIssuer(options, context);
    if (subcommand === "simulate") return simulate(options, context);
    if (subcommand === "status") return status(options);
    if (subcommand === "close") return close(options);
    if (subcommand === "campaign") {
      const url = required("campaign", "url", options.url);
      return createCampaign(campaignCall("campaign", options, url), await loadRecords(options), context);
    }
    return query(options);
  },
};
