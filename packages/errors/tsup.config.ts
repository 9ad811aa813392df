import { packageConfig } from "../../tsup.config.base";

export default packageConfig();
