/** The interpreter the Python extension has selected, if that extension is installed (it is optional). */
import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";

export async function selectedPythonInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  try {
    const python = await PythonExtension.api();
    const environment = await python.environments.resolveEnvironment(
      python.environments.getActiveEnvironmentPath(resource),
    );
    return environment?.executable.uri?.fsPath;
  } catch {
    // Not installed or disabled: the PATH fallback still applies.
    return undefined;
  }
}
