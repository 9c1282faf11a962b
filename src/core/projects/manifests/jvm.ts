/**
 * Java/Kotlin builds: `pom.xml` (Maven) and `build.gradle` / `build.gradle.kts` (Gradle).
 * Dependencies are `group:artifact`; Gradle plugin ids are listed too (they name frameworks such
 * as Spring Boot when dependencies come from a version catalog).
 */
import type { ManifestFacts } from './types.js';
import { unique } from './types.js';

const XML_COMMENT = /<!--[\s\S]*?-->/g;
const MAVEN_COORDINATE_BLOCK = /<(dependency|parent)\b[^>]*>([\s\S]*?)<\/\1\s*>/g;
const KOTLIN_MARKER = /org\.jetbrains\.kotlin|kotlin-maven-plugin|kotlin\(\s*["'](jvm|multiplatform|android)["']\s*\)/;

function xmlElementText(block: string, element: string): string | undefined {
  const match = new RegExp(`<${element}\\s*>\\s*([^<]+?)\\s*</${element}\\s*>`).exec(block);
  return match?.[1];
}

function jvmLanguage(text: string): string {
  return KOTLIN_MARKER.test(text) ? 'kotlin' : 'java';
}

/** pom.xml: the coordinates of every `<dependency>` and the `<parent>`. Not a `<project>` document: undefined. */
export function parsePomXml(text: string): ManifestFacts | undefined {
  const xml = text.replace(XML_COMMENT, '');
  if (!/<project[\s>]/.test(xml) || !/<\/project\s*>/.test(xml)) return undefined;
  const dependencies: string[] = [];
  for (const match of xml.matchAll(MAVEN_COORDINATE_BLOCK)) {
    const block = match[2] ?? '';
    const group = xmlElementText(block, 'groupId');
    const artifact = xmlElementText(block, 'artifactId');
    if (group && artifact) dependencies.push(`${group}:${artifact}`);
  }
  return { ecosystem: 'jvm', language: jvmLanguage(xml), dependencies: unique(dependencies) };
}

const GRADLE_CONFIGURATION =
  '(?:implementation|api|compileOnly|runtimeOnly|developmentOnly|annotationProcessor|kapt|ksp|compile|runtime|' +
  'testImplementation|testRuntimeOnly|testCompileOnly|testCompile|androidTestImplementation)';
/** `implementation 'g:a:v'`, `implementation("g:a:v")`, `implementation(platform("g:a:v"))`. */
const GRADLE_STRING_NOTATION = new RegExp(
  `^\\s*${GRADLE_CONFIGURATION}\\s*\\(?\\s*(?:(?:enforcedPlatform|platform)\\s*\\(\\s*)?["']([^"':\\s]+):([^"':\\s]+)(?::[^"']*)?["']`,
);
/** `implementation group: 'g', name: 'a', version: 'v'`. */
const GRADLE_MAP_NOTATION = new RegExp(`^\\s*${GRADLE_CONFIGURATION}\\s*\\(?\\s*group\\s*:\\s*["']([^"']+)["']\\s*,\\s*name\\s*:\\s*["']([^"']+)["']`);
/**
 * `id 'org.springframework.boot' version '3.2.0'` or `id("org.springframework.boot")`. Core plugins
 * without a dot (`java`, `application`) say nothing about the project's dependencies.
 */
const GRADLE_PLUGIN = /^\s*id\s*\(?\s*["']([A-Za-z0-9_-]+\.[A-Za-z0-9._-]+)["']/;

/** build.gradle or build.gradle.kts: declared dependencies and applied plugin ids, line by line. */
export function parseBuildGradle(text: string): ManifestFacts | undefined {
  const dependencies: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const coordinate = GRADLE_STRING_NOTATION.exec(line) ?? GRADLE_MAP_NOTATION.exec(line);
    if (coordinate?.[1] && coordinate[2]) {
      dependencies.push(`${coordinate[1]}:${coordinate[2]}`);
      continue;
    }
    const plugin = GRADLE_PLUGIN.exec(line);
    if (plugin?.[1]) dependencies.push(plugin[1]);
  }
  return { ecosystem: 'jvm', language: jvmLanguage(text), dependencies: unique(dependencies) };
}
